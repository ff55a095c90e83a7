// Linear gather and scatter: every rank exchanges its block with the root directly.
// One round and each block crosses one link, which is best for large blocks; it is
// also the one algorithm that needs no rank to know any other's count (gatherv and
// scatterv).
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {

void linear_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int r = spec.rank;
  const uint64_t own = spec.blocks[r].count;
  if (r != spec.root) {
    if (own > 0) b.send(spec.root, input_region(0, own));
    return;
  }
  b.copy(out_block(spec.blocks[r]), input_region(0, own));
  for (int q = 0; q < spec.size; ++q) {
    if (q != r && spec.blocks[q].count > 0) b.recv(q, out_block(spec.blocks[q]));
  }
}

void linear_scatter(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int r = spec.rank;
  const uint64_t own = spec.blocks[r].count;
  if (r != spec.root) {
    if (own > 0) b.recv(spec.root, output_region(0, own));
    return;
  }
  for (int q = 0; q < spec.size; ++q) {
    if (q != r && spec.blocks[q].count > 0) b.send(q, in_block(spec.blocks[q]));
  }
  b.copy(output_region(0, own), in_block(spec.blocks[r]));
}

}  // namespace weft::collectives::algorithms

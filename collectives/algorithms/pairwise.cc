// Pairwise exchange all_to_all: in step s rank r sends to r + s and receives from
// r - s, so every pair exchanges exactly once and no rank is flooded by all the others
// at the same moment. All steps are posted at once; the transport's flow control
// paces them.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {

void pairwise_all_to_all(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, r = spec.rank;
  // In place, what arrives would overwrite what is still to be sent: it lands in
  // scratch laid out like the output and is copied over at the end.
  bool in_place = spec.input_in_output >= 0;
  uint64_t total = 0;
  for (const Block& blk : spec.recv_blocks) total = std::max(total, blk.offset + blk.count);
  Region landing = in_place ? b.allocate_scratch(total) : output_region(0, total);
  b.copy(landing.sub(spec.recv_blocks[r].offset, spec.recv_blocks[r].count),
         in_block(spec.blocks[r]));
  for (int s = 1; s < n; ++s) {
    int to = mod(r + s, n), from = mod(r - s, n);
    if (spec.blocks[to].count > 0) b.send(to, in_block(spec.blocks[to]));
    const Block& arriving = spec.recv_blocks[from];
    if (arriving.count > 0) b.recv(from, landing.sub(arriving.offset, arriving.count));
  }
  if (!in_place) return;
  for (int q = 0; q < n; ++q) {
    const Block& blk = spec.recv_blocks[q];
    if (blk.count > 0) b.copy(out_block(blk), landing.sub(blk.offset, blk.count));
  }
}

}  // namespace weft::collectives::algorithms

// Bruck all_gather: ceil(log2 n) rounds for any n. Each rank keeps the blocks it has in
// scratch in relative order (its own first, then rank+1's, ...); in round k it sends
// the first min(2^k, n - 2^k) of them to rank - 2^k and appends as many from
// rank + 2^k, and at the end it copies them into place. Two local copies of the data
// buy the fewest rounds, which pays for small blocks.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {

void bruck_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, r = spec.rank;
  // start[i]: where relative block i (rank r + i's) begins in scratch.
  std::vector<uint64_t> start(n + 1, 0);
  for (int i = 0; i < n; ++i) start[i + 1] = start[i] + spec.blocks[mod(r + i, n)].count;
  Region held = b.allocate_scratch(start[n]);
  auto relative = [&](int first, int count) {
    return held.sub(start[first], start[first + count] - start[first]);
  };
  b.copy(relative(0, 1), input_region(0, spec.blocks[r].count));
  for (int distance = 1; distance < n; distance <<= 1) {
    int blocks = std::min(distance, n - distance);
    Region outgoing = relative(0, blocks), incoming = relative(distance, blocks);
    if (outgoing.count > 0) b.send(mod(r - distance, n), outgoing);
    if (incoming.count > 0) b.recv(mod(r + distance, n), incoming);
  }
  for (int i = 0; i < n; ++i) b.copy(out_block(spec.blocks[mod(r + i, n)]), relative(i, 1));
}

}  // namespace weft::collectives::algorithms

// Pipelined chain broadcast: root -> root+1 -> ... -> root+n-1, the data in segments.
// Every link carries the data once, so for large messages the time approaches one
// transfer plus (n - 1) segment latencies, whatever n.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {

void chain_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, v = mod(spec.rank - spec.root, n);
  const int previous = mod(spec.rank - 1, n), next = mod(spec.rank + 1, n);
  Region data = output_region(0, spec.count);
  for_segments(data.count, spec.segment, [&](uint64_t at, uint64_t len) {
    if (v > 0) b.recv(previous, data.sub(at, len));
    if (v < n - 1) b.send(next, data.sub(at, len));
  });
}

}  // namespace weft::collectives::algorithms

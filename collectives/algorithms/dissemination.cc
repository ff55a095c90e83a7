// Dissemination barrier: in round k every rank signals rank + 2^k and waits for
// rank - 2^k; after ceil(log2 n) rounds each rank has heard, directly or not, from
// every other, whatever n.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {

void dissemination_barrier(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, r = spec.rank;
  Region nothing = scratch_region(0, 0);
  bool first = true;
  OpId heard = 0;
  for (int distance = 1; distance < n; distance <<= 1) {
    if (first) {
      b.send(mod(r + distance, n), nothing);
    } else {
      b.send(mod(r + distance, n), nothing, {heard});
    }
    heard = b.recv(mod(r - distance, n), nothing);
    first = false;
  }
}

}  // namespace weft::collectives::algorithms

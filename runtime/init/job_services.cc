#include "runtime/init/job_services.h"

#include "runtime/context.h"

namespace weft::runtime {

uint64_t take_fresh_comm_ids(Context& c, uint64_t count, base::Deadline deadline) {
  const int64_t block = 2 * static_cast<int64_t>(count);  // two per group
  // A world of one has no store, and nobody to disagree with.
  if (!c.job || !c.job->store) return c.next_comm.fetch_add(static_cast<uint32_t>(block));
  return static_cast<uint64_t>(c.job->store->add("comm_ids", block, deadline) - block + 2);
}

}  // namespace weft::runtime

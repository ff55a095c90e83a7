// Running a Schedule: over the engine's links (execute), and the local operations that
// the simulator shares (run_local_op).
#pragma once

#include <cstddef>
#include <memory>

#include "core/collectives/collective_spec.h"
#include "core/collectives/schedule.h"
#include "core/p2p/group_state.h"
#include "weft/timeout.h"

namespace weft::core {

class Engine;

struct Buffers {
  std::byte* input = nullptr;
  std::byte* output = nullptr;
  std::byte* scratch = nullptr;

  std::byte* address(const sched::Region& r, uint64_t element_bytes) const {
    std::byte* base = r.buffer == sched::Buffer::kInput    ? input
                      : r.buffer == sched::Buffer::kOutput ? output
                                                           : scratch;
    return base + r.offset * element_bytes;
  }
};

// Runs a kReduce or kCopy operation.
void run_local_op(const sched::Op& op, const CollectiveSpec& spec, const Buffers& buffers);

// kAvg: divides the collective's result by the group size (after the schedule ran).
void finish_average(const CollectiveSpec& spec, const Buffers& buffers);

// Runs `schedule` to the end. Messages go in the collective matching space `space`
// with tag `tag`. Throws the first failure (PeerError, TimeoutError once `timeout` has
// passed, DesyncError when a peer's message does not have the size or dtype this rank
// expects); the operations still in flight are then abandoned, so that weft touches
// none of the buffers after it has thrown.
void execute(const sched::Schedule& schedule, const CollectiveSpec& spec, const Buffers& buffers,
             Engine& engine, const std::shared_ptr<const detail::GroupState>& space, int tag,
             Timeout timeout);

}  // namespace weft::core

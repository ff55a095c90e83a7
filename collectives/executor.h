// Running a Schedule: over the engine's links (execute), and the local operations that
// the simulator shares (run_local_op).
#pragma once

#include <cstddef>
#include <memory>

#include "collectives/collective_spec.h"
#include "collectives/execution_state.h"
#include "collectives/schedule.h"
#include "p2p/group_state.h"
#include "weft/timeout.h"

namespace weft::p2p {
class Engine;
}  // namespace weft::p2p

namespace weft::collectives {

struct Buffers {
  std::byte* input = nullptr;
  std::byte* output = nullptr;
  std::byte* scratch = nullptr;

  std::byte* address(const Region& r, uint64_t element_bytes) const {
    std::byte* base = r.buffer == Buffer::kInput    ? input
                      : r.buffer == Buffer::kOutput ? output
                                                    : scratch;
    return base + r.offset * element_bytes;
  }
};

// Runs a kReduce or kCopy operation.
void run_local_op(const Op& op, const CollectiveSpec& spec, const Buffers& buffers);

// kAvg: divides the collective's result by the group size (after the schedule ran).
void finish_average(const CollectiveSpec& spec, const Buffers& buffers);

// Runs `schedule` to the end. Messages go in the collective matching space `space`
// with tag `tag` and carry `stamp`, the call's (collectives/call_stamp.h: of the user's
// call, which the device layer's host steps share). Throws the first failure
// (PeerError, TimeoutError once `timeout` has passed, DesyncError when a peer's message
// belongs to another call or does not have the size or dtype this rank expects, or
// another member found the ranks in disagreement); the operations still in flight are then
// abandoned, so that weft touches none of the buffers after it has thrown. Its lists and the run of
// the schedule are `state`'s, reused from call to call: a schedule that ran before runs without
// allocating here (the engine's own requests aside).
void execute(const Schedule& schedule, const CollectiveSpec& spec, const Buffers& buffers,
             p2p::Engine& engine, const std::shared_ptr<const p2p::GroupState>& space, int tag,
             uint64_t stamp, Timeout timeout, ExecutionState& state);

}  // namespace weft::collectives

#include "collectives/executor.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/deadline.h"
#include "base/failure.h"
#include "base/lower_layer_scope.h"
#include "collectives/reduce/reduce_kernels.h"
#include "collectives/schedule_run.h"
#include "p2p/engine.h"
#include "weft/error.h"

namespace weft::collectives {

void run_local_op(const Op& op, const CollectiveSpec& spec, const Buffers& buffers) {
  const uint64_t size = spec.element_bytes();
  std::byte* dst = buffers.address(op.dst, size);
  const std::byte* a = buffers.address(op.a, size);
  if (op.type == OpType::kCopy) {
    // In place, source and destination are often the same memory.
    if (dst != a && op.dst.count > 0) std::memcpy(dst, a, op.dst.count * size);
    return;
  }
  collectives::reduce::reduce_elements(spec.op, spec.dtype, dst, a, buffers.address(op.b, size),
                                       op.dst.count);
}

void finish_average(const CollectiveSpec& spec, const Buffers& buffers) {
  if (spec.op != ReduceOp::kAvg) return;
  uint64_t count = 0;
  switch (spec.kind) {
    case CollectiveKind::kAllReduce:
      count = spec.count;
      break;
    case CollectiveKind::kReduce:
      count = spec.rank == spec.root ? spec.count : 0;
      break;
    case CollectiveKind::kReduceScatter:
      count = spec.blocks[spec.rank].count;
      break;
    default:
      return;
  }
  if (count > 0) collectives::reduce::divide_elements(spec.dtype, buffers.output, count, spec.size);
}

namespace {

// Calls the engine, marked as such for allocation counting (base/lower_layer_scope.h).
template <typename Call>
decltype(auto) in_engine(Call&& call) {
  base::LowerLayerScope scope;
  return call();
}

// A receive completed: it must have brought exactly what the schedule expects.
void check_arrival(const Op& op, const p2p::RequestState& r, const CollectiveSpec& spec) {
  if (r.error) {
    try {
      std::rethrow_exception(r.error);
    } catch (const InvalidArgument& e) {
      // The message did not fit the receive (too large, or another dtype).
      throw DesyncError(std::string(e.what()) +
                        ": the ranks disagree about this collective's counts or dtype");
    }
  }
  uint64_t expected = op.dst.count * spec.element_bytes();
  if (r.bytes != expected) {
    throw DesyncError("rank " + std::to_string(op.peer) + " sent " + std::to_string(r.bytes) +
                      " bytes where " + std::to_string(expected) +
                      " were expected: the ranks disagree about this collective's counts");
  }
}

}  // namespace

void execute(const Schedule& schedule, const CollectiveSpec& spec, const Buffers& buffers,
             p2p::Engine& engine, const std::shared_ptr<const p2p::GroupState>& space, int tag,
             uint64_t stamp, Timeout timeout, ExecutionState& state) {
  if (schedule.ops.empty()) return;
  ScheduleRun& run = state.run;
  run.reset(schedule);
  const uint64_t size = spec.element_bytes();
  std::vector<ExecutionState::InFlight>& in_flight = state.in_flight;
  std::vector<p2p::RequestState*>& waiting = state.waiting;
  std::vector<OpId>& ready = state.ready;
  std::vector<OpId>& receives = state.receives;
  in_flight.clear();
  // The engine's requests are released when the call ends, however it ends.
  struct Release {
    std::vector<ExecutionState::InFlight>& in_flight;
    ~Release() { in_flight.clear(); }
  } release{in_flight};
  std::optional<base::Deadline> deadline;
  try {
    while (true) {
      ready.clear();
      receives.clear();
      run.take_ready(ready);
      for (size_t i = 0; i < ready.size(); ++i) {
        const Op& op = schedule.ops[ready[i]];
        if (op.type == OpType::kRecv) {
          // Posted after this pass's sends: a peer waits for our sends, while a
          // receive posted a moment later still catches its message.
          receives.push_back(ready[i]);
          continue;
        }
        if (op.type == OpType::kReduce || op.type == OpType::kCopy) {
          run_local_op(op, spec, buffers);
          run.finished(ready[i]);
          run.take_ready(ready);  // what this enabled runs in this pass too
          continue;
        }
        Tensor tensor(buffers.address(op.a, size), op.a.count, spec.dtype);
        if (in_engine(
                [&] { return engine.send_eagerly_now(*space, tensor, op.peer, tag, stamp); })) {
          run.finished(ready[i]);
          run.take_ready(ready);
          continue;
        }
        in_flight.push_back({ready[i], in_engine([&] {
                               return engine.isend(space, tensor, op.peer, tag, false, false,
                                                   stamp);
                             })});
      }
      for (OpId id : receives) {
        const Op& op = schedule.ops[id];
        Tensor tensor(buffers.address(op.dst, size), op.dst.count, spec.dtype);
        in_flight.push_back({id, in_engine([&] {
                               return engine.irecv(space, tensor, op.peer, tag, false, stamp);
                             })});
      }
      if (run.done()) return;
      if (in_flight.empty()) {
        throw Error(ErrorCode::kInternal, "collective schedule stalled with " +
                                              std::to_string(run.unfinished()) +
                                              " operations unfinished");
      }
      waiting.clear();
      for (const ExecutionState::InFlight& f : in_flight) waiting.push_back(f.request.get());
      if (!deadline) deadline = base::Deadline::after(timeout);
      try {
        in_engine([&] { engine.wait_any(waiting, deadline->remaining()); });
      } catch (const TimeoutError&) {
        // The collective's deadline: wait_any's message names the first one's peer.
        engine.note_timed_out_waiting_for(waiting[0]->peer_world);
        throw;
      }
      for (size_t i = 0; i < in_flight.size();) {
        const p2p::RequestState& r = *in_flight[i].request;
        if (!r.done.load(std::memory_order_acquire)) {
          ++i;
          continue;
        }
        const Op& op = schedule.ops[in_flight[i].op];
        if (op.type == OpType::kRecv) {
          check_arrival(op, r, spec);
        } else if (r.error) {
          std::rethrow_exception(r.error);
        }
        run.finished(in_flight[i].op);
        in_flight[i] = std::move(in_flight.back());
        in_flight.pop_back();
      }
    }
  } catch (const std::exception& e) {
    // Peers whose large messages are withdrawn learn why: a rank that died fails their
    // receives as it fails this collective.
    const base::Failure failure = base::failure_of(e);
    const int reason = failure.code() == ErrorCode::kPeer      ? failure.peer()
                       : failure.code() == ErrorCode::kTimeout ? p2p::kWithdrawnAfterTimeout
                                                               : p2p::kWithdrawnAfterError;
    for (ExecutionState::InFlight& f : in_flight) {
      in_engine([&] { engine.abandon(f.request, e.what(), reason); });
    }
    throw;
  }
}

}  // namespace weft::collectives

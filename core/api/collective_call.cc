#include "core/api/collective_call.h"

#include <optional>

#include "core/api/device_layer.h"
#include "core/base/log.h"
#include "core/collectives/algorithm_table.h"
#include "core/collectives/arena/shared_arena.h"
#include "core/collectives/collective_request.h"
#include "core/collectives/executor.h"
#include "core/init/context.h"

namespace weft::core {
namespace {

// "all_reduce (ring, rank 1 of group world, 1024 x float32)"
std::string describe(const CollectiveCall& call, const Algorithm* algorithm) {
  std::string d = std::string(call.op) + " (";
  if (algorithm) d += std::string(algorithm->name) + ", ";
  d += group_clause(*call.group);
  if (call.spec.kind != CollectiveKind::kBarrier) {
    uint64_t elements = call.spec.count;
    if (elements == 0) elements = std::max(call.input.count(), call.output.count());
    d += ", " + std::to_string(elements) + " x " + dtype_name(call.spec.dtype);
  }
  return d + ")";
}

// Rethrows the exception being handled with `prefix` before its message, keeping its
// type (and a PeerError's peer).
[[noreturn]] void rethrow_in_context(const std::string& prefix) {
  try {
    throw;
  } catch (const PeerError& e) {
    throw PeerError(e.peer(), prefix + ": " + e.what());
  } catch (const TimeoutError& e) {
    throw TimeoutError(prefix + ": " + e.what());
  } catch (const DesyncError& e) {
    throw DesyncError(prefix + ": " + e.what());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(prefix + ": " + e.what());
  } catch (const Error& e) {
    throw Error(e.code(), prefix + ": " + e.what());
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, prefix + ": " + e.what());
  }
}

void run_in_arena(const Algorithm& algorithm, const CollectiveSpec& spec,
                  const CollectiveCall& call, SharedArena& arena, Engine& engine, Timeout timeout) {
  arena.throw_if_broken();
  SharedArena::Call round_state{&engine, arena::signature(spec), timeout, std::nullopt};
  Buffers buffers{static_cast<std::byte*>(call.input.data()),
                  static_cast<std::byte*>(call.output.data()), nullptr};
  try {
    algorithm.run_in_arena(spec, buffers, arena, round_state);
  } catch (const std::exception& e) {
    arena.mark_failed(e);
    throw;
  }
  finish_average(spec, buffers);
}

// Runs a host call on `engine`, its scratch from `scratch`: used by both forms, so it
// takes what it needs explicitly rather than from the context (an asynchronous call
// may run while destroy_process_group is taking the context down). `turn` is the
// call's turn in the group's arena, released early when the algorithm does not use
// the arena; null when there is no arena or the turn belongs to an enclosing call.
void execute_host_call(const CollectiveCall& call, int tag, Timeout timeout, Engine& engine,
                       ScratchPool& scratch, ScheduleCache& schedules,
                       std::optional<SharedArena::Turn>* turn, const Algorithm*& algorithm) {
  // An empty call meets the other ranks as a barrier (see moves_nothing_anywhere).
  CollectiveSpec barrier_spec;
  const bool empty = call.spec.size > 1 && moves_nothing_anywhere(call.spec);
  if (empty) {
    barrier_spec.kind = CollectiveKind::kBarrier;
    barrier_spec.size = call.spec.size;
    barrier_spec.rank = call.spec.rank;
    barrier_spec.shared_arena = call.spec.shared_arena;
  }
  const CollectiveSpec& spec = empty ? barrier_spec : call.spec;
  algorithm = &select_algorithm(spec);
  if (log::enabled(log::Level::kInfo)) [[unlikely]] {
    WEFT_LOG(INFO) << describe(call, nullptr) << ": algorithm " << algorithm->name
                   << (empty ? " (no elements anywhere: the ranks only meet)" : "");
  }
  if (algorithm->run_in_arena != nullptr) {
    run_in_arena(*algorithm, spec, call, *call.group->arena, engine, timeout);
    return;
  }
  if (turn != nullptr && *turn) (*turn)->release();  // the arena is free for the next one
  std::shared_ptr<const sched::Schedule> schedule = schedules.get(*algorithm, spec);
  ScratchPool::Lease lease = scratch.acquire(schedule->scratch_count * spec.element_bytes());
  Buffers buffers{static_cast<std::byte*>(call.input.data()),
                  static_cast<std::byte*>(call.output.data()), lease.data()};
  execute(*schedule, spec, buffers, engine, call.group->collectives, tag, timeout);
  finish_average(spec, buffers);
}

// Runs the call, taking its turn in the group's arena first. A call with device
// tensors goes to the device layer, whose host steps all run within that one turn and
// under the call's tag.
void execute_call(const CollectiveCall& call, int tag, Timeout timeout, Engine& engine,
                  ScratchPool& scratch, ScheduleCache& schedules) {
  const Algorithm* algorithm = nullptr;
  try {
    SharedArena* arena = call.group->arena.get();
    std::optional<SharedArena::Turn> turn;
    if (arena != nullptr) {
      turn.emplace(*arena, static_cast<uint32_t>(tag), timeout);
    }
    if (call.on_device) {
      HostCollectiveRunner host = [&](const CollectiveCall& step) {
        const Algorithm* step_algorithm = nullptr;
        execute_host_call(step, tag, timeout, engine, scratch, schedules, nullptr, step_algorithm);
      };
      device_layer().run(call, host);
      return;
    }
    execute_host_call(call, tag, timeout, engine, scratch, schedules, &turn, algorithm);
  } catch (...) {
    rethrow_in_context(describe(call, algorithm));
  }
}

int take_tag(const detail::GroupState& group) {
  return static_cast<int>(group.next_collective.fetch_add(1, std::memory_order_relaxed) &
                          0x7fffffffu);
}

}  // namespace

CollectiveCall make_call(const Checker& checker, const char* op, CollectiveKind kind, DType dtype) {
  CollectiveCall call;
  call.op = op;
  call.group = checker.group();
  call.spec.kind = kind;
  call.spec.dtype = dtype;
  call.spec.size = checker.size();
  call.spec.rank = checker.rank();
  call.spec.segment = segment_elements(dtype);
  call.spec.shared_arena = call.group->arena != nullptr;
  return call;
}

bool has_device_tensor(const CollectiveCall& call) {
  return on_device(call.input) || on_device(call.output);
}

// Hands a call with a device tensor to the device layer, which notes when its inputs
// are ready before anything runs.
void prepare_device(CollectiveCall& call) {
  call.on_device = has_device_tensor(call);
  if (call.on_device) [[unlikely]]
    device_layer().prepare(call);
}

CollectiveCall make_step(const CollectiveCall& outer, CollectiveKind kind, DType dtype) {
  CollectiveCall call;
  call.op = outer.op;
  call.group = outer.group;
  call.spec.kind = kind;
  call.spec.dtype = dtype;
  call.spec.size = outer.spec.size;
  call.spec.rank = outer.spec.rank;
  call.spec.segment = segment_elements(dtype);
  call.spec.shared_arena = outer.spec.shared_arena;
  return call;
}

bool group_shares_memory(const detail::GroupState& group) {
  if (group.arena != nullptr) return true;
  const Context& c = context("group_shares_memory");
  for (int world : group.world_ranks) {
    if (world != c.rank && !c.shares_memory[world]) return false;
  }
  return true;
}

void run_blocking(const CollectiveCall& call, Timeout timeout) {
  Context& c = context(call.op);
  Timeout t = timeout.count() >= 0 ? timeout : call.group->timeout;
  if (has_device_tensor(call)) [[unlikely]] {
    CollectiveCall device_call = call;  // the layer's state goes with the call
    prepare_device(device_call);
    execute_call(device_call, take_tag(*call.group), t, *c.engine, c.scratch, c.schedules);
    return;
  }
  execute_call(call, take_tag(*call.group), t, *c.engine, c.scratch, c.schedules);
}

Request run_async(CollectiveCall call) {
  Context& c = context(call.op);
  prepare_device(call);
  int tag = take_tag(*call.group);
  auto request = std::make_shared<CollectiveRequest>(call.group, describe(call, nullptr));
  Engine* engine = c.engine.get();
  ScratchPool* scratch = &c.scratch;
  ScheduleCache* schedules = &c.schedules;
  c.background.submit([call = std::move(call), tag, request, engine, scratch, schedules] {
    std::exception_ptr failure;
    try {
      execute_call(call, tag, call.group->timeout, *engine, *scratch, *schedules);
    } catch (...) {
      failure = std::current_exception();
    }
    request->complete(failure);
  });
  return Request(request);
}

}  // namespace weft::core

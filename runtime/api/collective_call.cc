#include "runtime/api/collective_call.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <sstream>
#include <string>

#include "base/log.h"
#include "collectives/algorithm_table.h"
#include "collectives/arena/shared_arena.h"
#include "collectives/call_stamp.h"
#include "collectives/collective_request.h"
#include "collectives/executor.h"
#include "runtime/context.h"
#include "runtime/device_interface.h"

namespace weft::runtime {
namespace {

using collectives::Algorithm;
using collectives::Buffers;
using collectives::CollectiveKind;
using collectives::CollectiveSpec;
using collectives::ExecutionState;
using collectives::ExecutionStateLease;
using collectives::ScheduleCache;
using collectives::ScratchPool;
using collectives::SharedArena;
using p2p::Engine;

// "all_reduce (ring, rank 1 of group world, 1024 x float32)"
std::string describe(const CollectiveCall& call, const Algorithm* algorithm) {
  std::string d = std::string(call.op) + " (";
  if (algorithm) d += std::string(algorithm->name) + ", ";
  d += group_clause(*call.group->messages);
  if (call.spec.kind != CollectiveKind::kBarrier) {
    uint64_t elements = call.spec.count;
    if (elements == 0) elements = std::max(call.input.count(), call.output.count());
    d += ", " + std::to_string(elements) + " x " + dtype_name(call.spec.dtype);
  }
  return d + ")";
}

// Which algorithm runs a call: at INFO for the first call of its collective, algorithm
// and power-of-two size class in this process, at TRACE for every call (a training loop
// makes millions of calls, and an INFO log is read by people).
void log_algorithm(const CollectiveCall& call, const Algorithm& algorithm, bool empty) {
  uint64_t elements = call.spec.count;
  if (elements == 0) elements = std::max(call.input.count(), call.output.count());
  const uint64_t bytes = elements * call.spec.element_bytes();
  const int size_class = std::bit_width(bytes);  // bytes in [2^(c-1), 2^c)
  const std::string kind = std::string(call.op) + "/" + algorithm.name + "/" +
                           std::to_string(size_class) + (empty ? "/empty" : "");
  const bool first = base::log::first_time(kind);
  if (!first && !base::log::enabled(base::log::Level::kTrace)) return;
  std::ostringstream line;
  line << describe(call, nullptr) << ": algorithm " << algorithm.name
       << (empty ? " (no elements anywhere: the ranks only meet)" : "");
  if (first && bytes > 0) {
    line << " (the first " << call.op << " of " << (uint64_t{1} << (size_class - 1)) << " to "
         << ((uint64_t{1} << (size_class - 1)) * 2 - 1) << " bytes here; "
         << "WEFT_DEBUG=TRACE logs every call)";
  }
  if (first) {
    WEFT_LOG(INFO) << line.str();
  } else {
    WEFT_LOG(TRACE) << line.str();
  }
}

// Rethrows the exception being handled with `prefix` before its message, keeping its
// kind.
[[noreturn]] void rethrow_in_context(const std::string& prefix) {
  try {
    throw;
  } catch (const Error& e) {
    e.rethrow_with_context(prefix);
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, prefix + ": " + e.what());
  }
}

void run_in_arena(const Algorithm& algorithm, const CollectiveSpec& spec,
                  const CollectiveCall& call, SharedArena& arena, Engine& engine, Timeout timeout) {
  arena.throw_if_broken();
  SharedArena::Call round_state{&engine, collectives::arena::signature(spec), timeout,
                                std::nullopt};
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

// The spec an empty call runs as: a barrier of the same group (see
// moves_nothing_anywhere).
CollectiveSpec barrier_of(const CollectiveSpec& spec) {
  CollectiveSpec barrier;
  barrier.kind = CollectiveKind::kBarrier;
  barrier.size = spec.size;
  barrier.rank = spec.rank;
  barrier.shared_arena = spec.shared_arena;
  return barrier;
}

// The call's algorithm and schedule, in `state`: those of the thread's previous call
// when this one asks for the same (a repeated call takes no lock and searches no map),
// else chosen and looked up in `schedules`.
void plan(const CollectiveCall& call, ScheduleCache& schedules, ExecutionState& state) {
  if (state.repeats(call.spec)) [[likely]]
    return;
  const bool empty = call.spec.size > 1 && moves_nothing_anywhere(call.spec);
  const CollectiveSpec barrier = empty ? barrier_of(call.spec) : CollectiveSpec{};
  const CollectiveSpec& spec = empty ? barrier : call.spec;
  const Algorithm& algorithm = select_algorithm(spec);
  std::shared_ptr<const collectives::Schedule> schedule;
  if (algorithm.run_in_arena == nullptr) schedule = schedules.get(algorithm, spec);
  state.remember(call.spec, algorithm, empty, std::move(schedule));
}

// Runs a host call on `engine`, its scratch from `scratch`: used by both forms, so it
// takes what it needs explicitly rather than from the context (an asynchronous call
// may run while destroy_process_group is taking the context down). `turn` is the
// call's turn in the group's arena, released early when the algorithm does not use
// the arena; null when there is no arena or the turn belongs to an enclosing call.
void execute_host_call(const CollectiveCall& call, int tag, uint64_t stamp, Timeout timeout,
                       Engine& engine, ScratchPool& scratch, ScheduleCache& schedules,
                       std::optional<SharedArena::Turn>* turn, const Algorithm*& algorithm) {
  ExecutionStateLease state;
  plan(call, schedules, *state);
  algorithm = state->algorithm();
  // An empty call meets the other ranks as a barrier (see moves_nothing_anywhere).
  const bool empty = state->empty();
  const CollectiveSpec barrier = empty ? barrier_of(call.spec) : CollectiveSpec{};
  const CollectiveSpec& spec = empty ? barrier : call.spec;
  if (base::log::enabled(base::log::Level::kInfo)) [[unlikely]] {
    log_algorithm(call, *algorithm, empty);
  }
  if (algorithm->run_in_arena != nullptr) {
    run_in_arena(*algorithm, spec, call, *call.group->collectives.arena(), engine, timeout);
    return;
  }
  if (turn != nullptr && *turn) (*turn)->release();  // the arena is free for the next one
  const collectives::Schedule& schedule = *state->schedule();
  const uint64_t scratch_bytes = schedule.scratch_count * spec.element_bytes();
  // Small scratch is the state's own; large scratch is leased from the context's pool.
  std::byte* scratch_data = state->scratch(scratch_bytes);
  ScratchPool::Lease lease;
  if (scratch_data == nullptr && scratch_bytes > 0) {
    lease = scratch.acquire(scratch_bytes);
    scratch_data = lease.data();
  }
  Buffers buffers{static_cast<std::byte*>(call.input.data()),
                  static_cast<std::byte*>(call.output.data()), scratch_data};
  execute(schedule, spec, buffers, engine, call.group->collectives.space(), tag, stamp, timeout,
          *state);
  finish_average(spec, buffers);
}

// Whether every member of the group shares memory with this process (one host).
bool group_shares_memory(const GroupRecord& group) {
  if (group.collectives.arena() != nullptr) return true;
  const Context& c = context("group_shares_memory");
  for (int world : group.world_ranks()) {
    if (world != c.rank && !c.shares_memory[world]) return false;
  }
  return true;
}

// The call as the device layer sees it.
DeviceCall device_call(const CollectiveCall& call) {
  return DeviceCall{
      call.op,          call.spec, call.input, call.output, group_shares_memory(*call.group),
      call.device_state};
}

// A host step of the device layer's as a call of the same group.
CollectiveCall host_step(const CollectiveCall& outer, const DeviceCall& step) {
  CollectiveCall call;
  call.op = step.op;
  call.group = outer.group;
  call.spec = step.spec;
  call.input = step.input;
  call.output = step.output;
  return call;
}

// Runs the call, taking its turn in the group's arena first. A call with device
// tensors goes to the device layer, whose host steps all run within that one turn and
// under the call's tag.
void execute_call(const CollectiveCall& call, int tag, Timeout timeout, Engine& engine,
                  ScratchPool& scratch, ScheduleCache& schedules) {
  const Algorithm* algorithm = nullptr;
  // Every message of the call carries its stamp, and every receive checks the stamp of
  // what it takes: ranks that disagree about the call fail with DesyncError.
  const uint64_t stamp = collectives::call_stamp(call.spec);
  try {
    SharedArena* arena = call.group->collectives.arena();
    std::optional<SharedArena::Turn> turn;
    if (arena != nullptr) {
      turn.emplace(*arena, static_cast<uint32_t>(tag), timeout);
    }
    if (call.on_device) {
      HostStep host = [&](const DeviceCall& step) {
        const Algorithm* step_algorithm = nullptr;
        execute_host_call(host_step(call, step), tag, stamp, timeout, engine, scratch, schedules,
                          nullptr, step_algorithm);
      };
      device_layer().run(device_call(call), host);
      return;
    }
    execute_host_call(call, tag, stamp, timeout, engine, scratch, schedules, &turn, algorithm);
  } catch (...) {
    rethrow_in_context(describe(call, algorithm));
  }
}

}  // namespace

CollectiveCall make_call(const Checker& checker, const char* op, CollectiveKind kind, DType dtype) {
  CollectiveCall call;
  call.op = op;
  call.group = checker.record();
  call.spec.kind = kind;
  call.spec.dtype = dtype;
  call.spec.size = checker.size();
  call.spec.rank = checker.rank();
  call.spec.segment = collectives::segment_elements(dtype);
  call.spec.shared_arena = call.group->collectives.arena() != nullptr;
  call.spec.hosts = call.group->collectives.hosts();
  return call;
}

bool has_device_tensor(const CollectiveCall& call) {
  return on_device(call.input) || on_device(call.output);
}

// Hands a call with a device tensor to the device layer, which notes when its inputs
// are ready before anything runs.
void prepare_device(CollectiveCall& call) {
  call.on_device = has_device_tensor(call);
  if (call.on_device) [[unlikely]] {
    DeviceCall device = device_call(call);
    device_layer().prepare(device);
    call.device_state = std::move(device.layer_state);
  }
}

namespace {

// Block vectors that blocking calls of this thread gave back, for its next calls.
constexpr size_t kSpareBlockVectors = 4;
thread_local std::vector<std::vector<collectives::Block>> spare_block_vectors;

void give_back(std::vector<collectives::Block>& blocks) {
  std::vector<std::vector<collectives::Block>>& spare = spare_block_vectors;
  if (blocks.capacity() == 0 || spare.size() >= kSpareBlockVectors) return;
  if (spare.capacity() < kSpareBlockVectors) spare.reserve(kSpareBlockVectors);
  spare.push_back(std::move(blocks));
}

}  // namespace

std::vector<collectives::Block> block_vector() {
  std::vector<std::vector<collectives::Block>>& spare = spare_block_vectors;
  if (spare.empty()) return {};
  std::vector<collectives::Block> blocks = std::move(spare.back());
  spare.pop_back();
  blocks.clear();
  return blocks;
}

void run_blocking(CollectiveCall&& call, Timeout timeout) {
  struct GiveBack {
    CollectiveCall& call;
    ~GiveBack() {
      give_back(call.spec.blocks);
      give_back(call.spec.recv_blocks);
    }
  } give_back_blocks{call};
  Context& c = context(call.op);
  Timeout t = timeout.count() >= 0 ? timeout : call.group->timeout();
  if (has_device_tensor(call)) [[unlikely]] {
    CollectiveCall device_call = call;  // the layer's state goes with the call
    prepare_device(device_call);
    execute_call(device_call, call.group->collectives.take_tag(), t, *c.engine, c.scratch,
                 c.schedules);
    return;
  }
  execute_call(call, call.group->collectives.take_tag(), t, *c.engine, c.scratch, c.schedules);
  if (call.finish) [[unlikely]]
    call.finish();
}

Request run_async(CollectiveCall call) {
  Context& c = context(call.op);
  prepare_device(call);
  int tag = call.group->collectives.take_tag();
  auto request = std::make_shared<collectives::CollectiveRequest>(describe(call, nullptr),
                                                                  call.group->timeout());
  Engine* engine = c.engine.get();
  ScratchPool* scratch = &c.scratch;
  ScheduleCache* schedules = &c.schedules;
  c.background.submit([call = std::move(call), tag, request, engine, scratch, schedules] {
    std::exception_ptr failure;
    try {
      execute_call(call, tag, call.group->timeout(), *engine, *scratch, *schedules);
      if (call.finish) call.finish();  // a list form's copy-out, before completion
    } catch (...) {
      failure = std::current_exception();
    }
    request->complete(failure);
  });
  return Handles::request(request);
}

bool takes_no_part(const Group& group, const char* op) {
  // Every process is in the world group: its calls (most of them) skip the look-up here,
  // which the call's own checks make anyway.
  return Handles::record(group) != nullptr && resolve_group(group, op)->rank() < 0;
}

Request completed_request(const char* op) {
  auto request = std::make_shared<collectives::CollectiveRequest>(
      std::string(op) + " (this process is not a member of the group)", Timeout{0});
  request->complete(nullptr);
  return Handles::request(request);
}

}  // namespace weft::runtime

// ExecutionState: what running a collective needs besides the call itself, kept
// between calls so that a collective that repeats allocates nothing and looks nothing
// up: the previous call's algorithm and schedule (a call asking for the same collective,
// group size and rank, counts, dtype, root and placement takes them without a lock or a
// map lookup: the choice and the schedule depend on nothing else), the run of the
// schedule and the executor's lists, reset rather than rebuilt, and the scratch memory
// of small calls.
//
// Each thread that runs collectives (a caller's, the background thread of asynchronous
// ones) keeps one, taken by ExecutionStateLease. Per thread rather than per group: a
// group's collectives may run in several threads at once, and handing a shared state to
// one call at a time takes two atomic exchanges per call, measured at about 25 ns of a
// 0.45 us shared-memory all_reduce; a thread's own state costs nothing to take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "collectives/collective_spec.h"
#include "collectives/schedule.h"
#include "collectives/schedule_run.h"
#include "p2p/engine.h"

namespace weft::collectives {

struct Algorithm;  // algorithm_table.h

class ExecutionState {
 public:
  ExecutionState() = default;
  ExecutionState(const ExecutionState&) = delete;
  ExecutionState& operator=(const ExecutionState&) = delete;
  ~ExecutionState();

  // Whether `spec` asks for what the previous call remembered here asked for, so that
  // its plan (algorithm(), empty(), schedule()) applies unchanged.
  bool repeats(const CollectiveSpec& spec) const;
  // The plan of the call `spec`: its algorithm, whether it moves nothing anywhere (and
  // so runs as a barrier), and its schedule (null for an arena algorithm).
  void remember(const CollectiveSpec& spec, const Algorithm& algorithm, bool empty,
                std::shared_ptr<const Schedule> schedule);
  const Algorithm* algorithm() const { return algorithm_; }
  bool empty() const { return empty_; }
  const Schedule* schedule() const { return schedule_.get(); }

  // `bytes` of scratch, 64-byte aligned, kept for the next call; null when `bytes` is 0
  // or above kMaxScratchBytes (the caller leases those from the context's ScratchPool,
  // so that a group does not hold large buffers for good).
  static constexpr uint64_t kMaxScratchBytes = 1 << 20;
  std::byte* scratch(uint64_t bytes);

  // The executor's (executor.cc): the run of the schedule, the requests in flight and
  // the operations of the current pass.
  struct InFlight {
    OpId op;
    p2p::Engine::RequestPtr request;
  };
  ScheduleRun run;
  std::vector<InFlight> in_flight;
  std::vector<p2p::RequestState*> waiting;
  std::vector<OpId> ready, receives;

 private:
  const Algorithm* algorithm_ = nullptr;
  bool empty_ = false;
  CollectiveSpec spec_;  // the remembered call's
  std::shared_ptr<const Schedule> schedule_;
  std::byte* scratch_ = nullptr;
  uint64_t scratch_bytes_ = 0;
};

// This thread's ExecutionState for the length of one call; a call made while the
// thread's state is taken (a collective run from inside another's step) gets a state of
// its own.
class ExecutionStateLease {
 public:
  ExecutionStateLease();
  ~ExecutionStateLease();
  ExecutionStateLease(const ExecutionStateLease&) = delete;
  ExecutionStateLease& operator=(const ExecutionStateLease&) = delete;
  ExecutionState& operator*() const { return *state_; }
  ExecutionState* operator->() const { return state_; }

 private:
  ExecutionState* state_;
  std::unique_ptr<ExecutionState> own_;  // when the thread's state was taken
};

}  // namespace weft::collectives

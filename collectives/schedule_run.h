// ScheduleRun: which operations of a Schedule may start, as others finish. Shared by
// the executor (real links) and the simulator, so both run a schedule the same way.
//
// An operation is ready once its dependencies have finished; a send or receive also
// waits for every earlier send to (receive from) the same peer to have been started,
// which keeps messages in the order the peer expects them.
//
// A run can be reset to the start of another (or the same) schedule, reusing its
// vectors: a collective that repeats then runs without allocating.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/schedule.h"

namespace weft::collectives {

class ScheduleRun {
 public:
  ScheduleRun() = default;
  explicit ScheduleRun(const Schedule& schedule) { reset(schedule); }

  // Starts over on `schedule`, which must outlive the run (or the next reset).
  void reset(const Schedule& schedule);

  // Appends to `ready` the operations that may start now; each is handed out once.
  void take_ready(std::vector<OpId>& ready);
  void finished(OpId op);
  bool done() const { return finished_ == schedule_->ops.size(); }
  size_t unfinished() const { return schedule_->ops.size() - finished_; }

 private:
  void became_free(OpId op);  // all dependencies finished

  const Schedule* schedule_ = nullptr;
  std::vector<uint32_t> waiting_on_;    // unfinished dependencies per op
  std::vector<bool> free_;              // dependencies done
  std::vector<uint32_t> channel_next_;  // per channel: first op not yet handed out
  std::vector<OpId> ready_;
  size_t finished_ = 0;
};

}  // namespace weft::collectives

#include "collectives/schedule_run.h"

namespace weft::collectives {
namespace {

bool is_message(const Op& op) { return op.type == OpType::kSend || op.type == OpType::kRecv; }

}  // namespace

void ScheduleRun::reset(const Schedule& schedule) {
  schedule_ = &schedule;
  // assign() keeps the vectors' capacity: no allocation once they have been this large.
  waiting_on_.assign(schedule.dependency_counts.begin(), schedule.dependency_counts.end());
  free_.assign(schedule.ops.size(), false);
  channel_next_.assign(schedule.channel_begin.empty() ? 0 : schedule.channel_begin.size() - 1, 0);
  ready_.clear();
  finished_ = 0;
  for (OpId i = 0; i < schedule.ops.size(); ++i) {
    if (waiting_on_[i] == 0) became_free(i);
  }
}

void ScheduleRun::became_free(OpId op) {
  free_[op] = true;
  const Op& o = schedule_->ops[op];
  if (!is_message(o)) {
    ready_.push_back(op);
    return;
  }
  // Hand out the channel's ops in order, as far as they are free.
  uint32_t c = schedule_->channel_of[op];
  uint32_t begin = schedule_->channel_begin[c], end = schedule_->channel_begin[c + 1];
  uint32_t& next = channel_next_[c];
  while (begin + next < end && free_[schedule_->channel_ops[begin + next]]) {
    ready_.push_back(schedule_->channel_ops[begin + next++]);
  }
}

void ScheduleRun::take_ready(std::vector<OpId>& ready) {
  ready.insert(ready.end(), ready_.begin(), ready_.end());
  ready_.clear();
}

void ScheduleRun::finished(OpId op) {
  ++finished_;
  for (uint32_t i = schedule_->dependents_begin[op]; i < schedule_->dependents_begin[op + 1]; ++i) {
    OpId d = schedule_->dependents[i];
    if (--waiting_on_[d] == 0) became_free(d);
  }
}

}  // namespace weft::collectives

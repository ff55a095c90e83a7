#include "weft/request.h"

#include "base/operation.h"
#include "weft/error.h"

namespace weft {
namespace {

[[noreturn, gnu::noinline]] void throw_empty(const char* op) {
  throw Error(ErrorCode::kState, std::string("Request::") + op + ": empty request");
}

// Inline, with the message built out of line: every wait and status asks.
inline base::Operation& checked(const std::shared_ptr<base::Operation>& state, const char* op) {
  if (!state) [[unlikely]]
    throw_empty(op);
  return *state;
}

}  // namespace

// A send that went out at once is complete, cannot be cancelled, and reports what it
// sent.
bool Request::is_completed() const { return sent_ || checked(state_, "is_completed").test(); }

void Request::wait(Timeout timeout) const {
  if (!sent_) checked(state_, "wait").wait(timeout);
}

bool Request::cancel() const { return !sent_ && checked(state_, "cancel").cancel(); }

bool Request::cancelled() const {
  return !sent_ && checked(state_, "cancelled").result().cancelled;
}

int Request::source() const {
  return sent_ ? sent_->dst : checked(state_, "source").result().source;
}
int Request::group_source() const {
  return sent_ ? sent_->group_dst : checked(state_, "group_source").result().group_source;
}
int Request::tag() const { return sent_ ? sent_->tag : checked(state_, "tag").result().tag; }
uint64_t Request::bytes() const {
  return sent_ ? sent_->bytes : checked(state_, "bytes").result().bytes;
}

Request::Outcome Request::outcome() const {
  if (sent_) return {sent_->dst, sent_->group_dst, sent_->tag, sent_->bytes, false};
  base::Operation::Result r = checked(state_, "outcome").result();
  return {r.source, r.group_source, r.tag, r.bytes, r.cancelled};
}

}  // namespace weft

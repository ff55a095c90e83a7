#include "weft/request.h"

#include "collectives/collective_request.h"
#include "p2p/engine.h"
#include "p2p/request_state.h"
#include "weft/error.h"

namespace weft {
namespace {

const p2p::RequestState& checked(const std::shared_ptr<p2p::RequestState>& state, const char* op) {
  if (!state) throw Error(ErrorCode::kState, std::string("Request::") + op + ": empty request");
  return *state;
}

// A device receive's copy to the device, once the message is in host memory.
void finish_on_device(p2p::RequestState& state) {
  if (!state.finish_on_device || state.error) return;
  try {
    std::call_once(state.finished_on_device, state.finish_on_device);
  } catch (...) {
    state.error = std::current_exception();
  }
}

}  // namespace

bool Request::is_completed() const {
  checked(state_, "is_completed");
  // A completed request never touches its engine, which may be gone by now.
  bool done = state_->done.load(std::memory_order_acquire);
  // A collective makes progress in the background thread.
  if (!done && state_->kind != p2p::OpKind::kCollective) done = state_->engine->test(*state_);
  if (done) finish_on_device(*state_);
  return done;
}

void Request::wait(Timeout timeout) const {
  checked(state_, "wait");
  if (!state_->done.load(std::memory_order_acquire)) {
    Timeout t = timeout.count() >= 0 ? timeout : state_->group->timeout;
    if (state_->kind == p2p::OpKind::kCollective) {
      static_cast<collectives::CollectiveRequest&>(*state_).wait(t);
    } else {
      state_->engine->wait(*state_, t);
    }
  }
  finish_on_device(*state_);
  if (state_->error) std::rethrow_exception(state_->error);
}

bool Request::cancel() const {
  checked(state_, "cancel");
  if (state_->kind != p2p::OpKind::kRecv || state_->done.load(std::memory_order_acquire)) {
    return false;
  }
  return state_->engine->cancel_receive(state_);
}

bool Request::cancelled() const { return checked(state_, "cancelled").cancelled; }

int Request::source() const { return checked(state_, "source").peer; }
int Request::tag() const { return checked(state_, "tag").tag; }
uint64_t Request::bytes() const { return checked(state_, "bytes").bytes; }

}  // namespace weft

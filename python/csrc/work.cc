#include "work.h"

#include <c10/util/Exception.h>
#include <weft/error.h>

namespace weft::torch_backend {
namespace {

c10::intrusive_ptr<c10::ivalue::Future> tensor_list_future() {
  return c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
}

}  // namespace

std::exception_ptr backend_error(const std::string& message) {
  try {
    C10_THROW_ERROR(DistBackendError, message);
  } catch (...) {
    return std::current_exception();
  }
}

WeftWork::WeftWork(int rank, c10d::OpType type, const char* title,
                   std::vector<weft::Request> requests, std::vector<at::Tensor> outputs,
                   std::shared_ptr<void> keep, std::function<void()> finish,
                   std::chrono::milliseconds timeout)
    : Work(rank, type, title),
      title_(title),
      requests_(std::move(requests)),
      outputs_(std::move(outputs)),
      keep_(std::move(keep)),
      finish_(std::move(finish)),
      timeout_(timeout),
      deadline_(std::chrono::steady_clock::now() + timeout),
      future_(tensor_list_future()),
      collective_(!c10d::isP2POp(type)) {}

c10::intrusive_ptr<WeftWork> WeftWork::done(int rank, c10d::OpType type, const char* title,
                                            std::vector<at::Tensor> outputs) {
  auto work = c10::make_intrusive<WeftWork>(rank, type, title, std::vector<weft::Request>{},
                                            std::move(outputs), nullptr, nullptr,
                                            std::chrono::milliseconds(0));
  work->settle(nullptr);
  return work;
}

void WeftWork::settle(std::exception_ptr failure) {
  std::call_once(settle_once_, [&] {
    if (!failure && finish_) {
      try {
        finish_();
      } catch (const std::exception& e) {
        failure = backend_error(std::string("weft: completing the operation: ") + e.what());
      }
    }
    if (!failure && !requests_.empty() && requests_.front().valid()) {
      // A receive reports its source (recvAnysource); a send its destination.
      source_rank_ = requests_.front().outcome().group_source;
    }
    // The staging memory goes once weft is done with it; a work failed by its timeout
    // keeps it, since weft may still write there (the Watcher holds the work until then).
    if (requests_done()) keep_.reset();
    finish(failure);  // c10d's state: completed_, exception_, the condition variable
    if (failure) {
      future_->setError(failure);
    } else {
      future_->markCompleted(c10::IValue(outputs_));
    }
    settled_.store(true, std::memory_order_release);
    if (on_settled_) on_settled_();
  });
}

bool WeftWork::requests_done() const {
  for (const weft::Request& r : requests_) {
    if (!r.is_completed()) return false;
  }
  return true;
}

bool WeftWork::poll() {
  if (settled()) return true;
  if (!requests_done()) return false;
  return wait_slice(std::chrono::milliseconds(0));
}

bool WeftWork::wait_slice(std::chrono::milliseconds slice) {
  try {
    for (const weft::Request& r : requests_) r.wait(slice);
  } catch (const weft::TimeoutError&) {
    return false;  // the slice ran out; the operation goes on
  } catch (const weft::Error& e) {
    settle(backend_error(e.what()));
    return true;
  }
  settle(nullptr);
  return true;
}

void WeftWork::fail_by_timeout() {
  settle(backend_error(std::string("weft: ") + title_ + " timed out after " +
                       std::to_string(timeout_.count()) + " ms (rank " + std::to_string(rank_) +
                       ")"));
}

void WeftWork::cancel_requests() {
  for (const weft::Request& r : requests_) {
    if (r.valid()) r.cancel();
  }
}

void WeftWork::fail(const std::string& why) { settle(backend_error(why)); }

bool WeftWork::isCompleted() { return poll(); }

bool WeftWork::isSuccess() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !exception_;
}

std::exception_ptr WeftWork::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exception_;
}

int WeftWork::sourceRank() const { return source_rank_; }

bool WeftWork::wait(std::chrono::milliseconds timeout) {
  if (!settled()) {
    std::chrono::milliseconds t = timeout == kNoTimeout ? timeout_ : timeout;
    if (!wait_slice(t)) {
      C10_THROW_ERROR(DistBackendError, std::string("weft: ") + title_ + " (rank " +
                                            std::to_string(rank_) + "): wait timed out after " +
                                            std::to_string(t.count()) +
                                            " ms; the operation is still pending");
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (exception_) std::rethrow_exception(exception_);
  return true;
}

}  // namespace weft::torch_backend

// CollectiveRequest: the operation behind the Request of an asynchronous collective.
// The collective runs in the background thread, which completes it; a caller waits on a
// condition variable rather than polling links, since the background thread does that.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>

#include "base/operation.h"
#include "weft/error.h"

namespace weft::collectives {

class CollectiveRequest final : public base::Operation {
 public:
  // `timeout`: the group's, for waits that name none.
  CollectiveRequest(std::string description, Timeout timeout)
      : base::Operation(Kind::kCollective),
        description_(std::move(description)),
        timeout_(timeout) {}

  void complete(std::exception_ptr failure) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = failure;
    done_.store(true, std::memory_order_release);
    finished_.notify_all();
  }

  // The background thread makes the progress: nothing to do but look.
  bool test() override { return done_.load(std::memory_order_acquire); }

  // Throws TimeoutError if it has not completed within `timeout` (it keeps running).
  void wait(Timeout timeout) override {
    if (timeout.count() < 0) timeout = timeout_;
    std::unique_lock<std::mutex> lock(mutex_);
    bool finished = finished_.wait_for(lock, timeout, [&] { return done_.load(); });
    if (!finished) {
      throw TimeoutError(description_ + ": not completed within " +
                         std::to_string(timeout.count()) + " ms");
    }
    if (error_) std::rethrow_exception(error_);
  }

  Result result() const override { return {}; }

  // For waits over several requests (runtime/api/request_sets.cc).
  bool done() const { return done_.load(std::memory_order_acquire); }
  Timeout timeout() const { return timeout_; }
  const std::string& description() const { return description_; }

 private:
  const std::string description_;
  const Timeout timeout_;
  std::mutex mutex_;
  std::condition_variable finished_;
  std::atomic<bool> done_{false};
  std::exception_ptr error_;  // set before done_ when the collective failed
};

}  // namespace weft::collectives

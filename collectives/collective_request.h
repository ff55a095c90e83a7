// CollectiveRequest: the state behind the Request of an asynchronous collective. The
// collective runs in the background thread, which completes it; a caller waits on a
// condition variable rather than polling links, since the background thread does that.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>

#include "p2p/request_state.h"
#include "weft/error.h"

namespace weft::collectives {

class CollectiveRequest : public p2p::RequestState {
 public:
  CollectiveRequest(std::shared_ptr<const p2p::GroupState> group, std::string description)
      : RequestState(p2p::OpKind::kCollective, nullptr, std::move(group), Tensor(), -1, -1, -1),
        description_(std::move(description)) {}

  void complete(std::exception_ptr failure) {
    std::lock_guard<std::mutex> lock(mutex_);
    error = failure;
    done.store(true, std::memory_order_release);
    finished_.notify_all();
  }

  // Throws TimeoutError if it has not completed within `timeout` (it keeps running).
  void wait(Timeout timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    bool finished = finished_.wait_for(lock, timeout, [&] { return done.load(); });
    if (!finished) {
      throw TimeoutError(description_ + ": not completed within " +
                         std::to_string(timeout.count()) + " ms");
    }
  }

 private:
  std::string description_;
  std::mutex mutex_;
  std::condition_variable finished_;
};

}  // namespace weft::collectives

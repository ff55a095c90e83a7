#include "watcher.h"

#include <chrono>

namespace weft::torch_backend {
namespace {

constexpr auto kCollectiveSlice = std::chrono::milliseconds(1);
constexpr auto kPollInterval = std::chrono::microseconds(200);

}  // namespace

Watcher& Watcher::instance() {
  static Watcher* watcher = new Watcher();  // never destroyed: no exit-time ordering
  return *watcher;
}

void Watcher::add(c10::intrusive_ptr<WeftWork> work) {
  std::lock_guard<std::mutex> lock(mutex_);
  incoming_.push_back(std::move(work));
  if (!thread_.joinable()) {
    stopping_ = false;
    thread_ = std::thread([this] { loop(); });
  }
  wake_.notify_one();
}

void Watcher::sweep(std::deque<c10::intrusive_ptr<WeftWork>>& works) {
  for (auto it = works.begin(); it != works.end();) {
    WeftWork& work = **it;
    if (!work.settled()) {
      work.poll();
      if (!work.settled() && work.past_deadline()) {
        work.cancel_requests();
        work.fail_by_timeout();
      }
    }
    // Kept until weft is done with the buffers, even when failed by a timeout.
    if (work.settled() && work.requests_done()) {
      it = works.erase(it);
    } else {
      ++it;
    }
  }
}

void Watcher::loop() {
  std::deque<c10::intrusive_ptr<WeftWork>> works;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (works.empty()) wake_.wait(lock, [&] { return stopping_ || !incoming_.empty(); });
      if (stopping_) break;
      for (auto& w : incoming_) works.push_back(std::move(w));
      incoming_.clear();
    }
    WeftWork& oldest = *works.front();
    if (!oldest.settled() && oldest.collective()) {
      oldest.wait_slice(kCollectiveSlice);
    } else {
      std::this_thread::sleep_for(kPollInterval);
    }
    sweep(works);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& w : works) left_over_.push_back(std::move(w));
}

std::deque<c10::intrusive_ptr<WeftWork>> Watcher::stop(const std::string& why) {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
  std::deque<c10::intrusive_ptr<WeftWork>> works;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    works.swap(left_over_);
    for (auto& w : incoming_) works.push_back(std::move(w));
    incoming_.clear();
    stopping_ = false;
  }
  for (auto& w : works) {
    if (!w->settled()) w->fail(why);
  }
  return works;
}

}  // namespace weft::torch_backend

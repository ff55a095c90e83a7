// Background: the thread that runs asynchronous collectives, one after another in the
// order they were called, which is the order every rank calls them in.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace weft::collectives {

class Background {
 public:
  Background() = default;
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  // Runs what is queued (each job reports its own failure), then stops.
  ~Background();

  void submit(std::function<void()> job);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first job
};

}  // namespace weft::collectives

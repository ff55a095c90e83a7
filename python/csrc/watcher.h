// Watcher: the thread that completes the works nobody waits for, so that their futures
// (what DistributedDataParallel's communication hooks chain on) complete as soon as
// weft's operations do. One per process, for every group's works; started by the first
// work, stopped before weft leaves the job (a weft call must not race
// destroy_process_group).
//
// It waits on the oldest work when that is a collective (weft completes those in its
// background thread and wakes a waiter at once), in slices, and polls the others between
// slices; point-to-point works are polled every 200 µs, since waiting on them would spin
// a core. A work whose timeout passes is failed with a timeout, its receives withdrawn,
// and kept until weft lets go of its buffers.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "work.h"

namespace weft::torch_backend {

class Watcher {
 public:
  static Watcher& instance();

  void add(c10::intrusive_ptr<WeftWork> work);
  // Stops the thread and fails every work not complete yet with `why`. Returns them: the
  // caller keeps them (and so their buffers) until weft has left the job.
  std::deque<c10::intrusive_ptr<WeftWork>> stop(const std::string& why);

 private:
  void loop();
  // One pass: settles what has completed and drops what weft is done with.
  void sweep(std::deque<c10::intrusive_ptr<WeftWork>>& works);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<c10::intrusive_ptr<WeftWork>> incoming_;
  bool stopping_ = false;
  std::thread thread_;
  std::deque<c10::intrusive_ptr<WeftWork>> left_over_;  // the thread's, handed over at stop
};

}  // namespace weft::torch_backend

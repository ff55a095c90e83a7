// WeftWork: c10d's Work over weft's requests. An operation may be several weft requests
// (a coalesced call, one per tensor pair); it completes when they all have, and then
// runs its `finish` (copies out of staging memory, a division) once, in whichever
// thread sees the completion first: the caller's wait() or the Watcher (watcher.h),
// which completes the future when nobody waits.
#pragma once

#include <ATen/core/ivalue.h>
#include <weft/request.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

namespace weft::torch_backend {

class WeftWork : public c10d::Work {
 public:
  // `requests` carry the operation; `outputs` are what the future holds and result()
  // returns; `keep` holds what must live until the requests complete (staging copies,
  // count vectors); `finish` runs once after every request succeeded. `source` is
  // filled from the first request for a receive from any source.
  WeftWork(int rank, c10d::OpType type, const char* title, std::vector<weft::Request> requests,
           std::vector<at::Tensor> outputs, std::shared_ptr<void> keep,
           std::function<void()> finish, std::chrono::milliseconds timeout);

  // An operation that ran to completion in the caller's thread (a blocking call).
  static c10::intrusive_ptr<WeftWork> done(int rank, c10d::OpType type, const char* title,
                                           std::vector<at::Tensor> outputs);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  int sourceRank() const override;
  std::vector<at::Tensor> result() override { return outputs_; }
  void synchronize() override {}
  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  std::chrono::milliseconds getTimeout() const override { return timeout_; }

  // For the Watcher: whether every request is complete (settling the work if so); never
  // waits for a peer.
  bool poll();
  // For the Watcher: waits up to `slice` for the requests; true once settled.
  bool wait_slice(std::chrono::milliseconds slice);
  // For the Watcher: fails a work whose deadline passed and that nobody waited for.
  bool past_deadline() const { return std::chrono::steady_clock::now() > deadline_; }
  void fail_by_timeout();
  // For the Watcher: withdraws what can be withdrawn (receives no message matched yet).
  void cancel_requests();
  bool requests_done() const;
  // For the Backend's shutdown: fails a work that can no longer complete.
  void fail(const std::string& why);
  bool settled() const { return settled_.load(std::memory_order_acquire); }
  // Collectives complete in weft's background thread and can be waited for without
  // spinning; point-to-point requests are polled.
  bool collective() const { return collective_; }
  // Called once when the work settles (the backend counts its collectives in flight).
  void on_settled(std::function<void()> done) { on_settled_ = std::move(done); }

 private:
  // Completes the work, its future and the c10d state, once: `failure` null runs
  // `finish` first (and its failure becomes the work's).
  void settle(std::exception_ptr failure);

  const char* title_;
  std::vector<weft::Request> requests_;
  std::vector<at::Tensor> outputs_;
  std::shared_ptr<void> keep_;
  std::function<void()> finish_;
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point deadline_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::once_flag settle_once_;
  std::atomic<bool> settled_{false};
  int source_rank_ = -1;
  bool collective_;
  std::function<void()> on_settled_;
};

// The exception torch's backends raise for a failed communication
// (torch.distributed.DistBackendError, a RuntimeError), with weft's message.
std::exception_ptr backend_error(const std::string& message);

}  // namespace weft::torch_backend

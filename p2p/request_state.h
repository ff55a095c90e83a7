// RequestState: one point-to-point operation, shared by the engine (which drives it)
// and the user's Request handle (which waits on it, as a base::Operation). Fields other
// than `done` are only touched with the engine's lock held, or after `done` has become
// true.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/operation.h"
#include "p2p/group_state.h"
#include "weft/tensor.h"

namespace weft::p2p {

class Engine;

enum class OpKind : uint8_t { kSend, kRecv };

// e.g. "send by rank 0 to rank 1 (tag 5, group world)"; peer or tag -1 means any.
std::string describe_op(OpKind kind, const GroupState& group, int peer, int tag);
// e.g. "iprobe by rank 0 from any rank (tag 5, group world)": `op` is "probe" or "iprobe".
std::string describe_probe(const char* op, const GroupState& group, int src, int tag);

enum class OpStage : uint8_t {
  kPosted,       // recv: waiting in the posted queue; send: not yet handed to a link
  kEagerQueued,  // send: eager frame queued on the link, not fully written yet
  kAwaitingCts,  // send: RTS sent, waiting for the receiver to match it
  kStreaming,    // send: payload being written; recv: payload arriving
  kDone,
};

class RequestState final : public base::Operation {
 public:
  RequestState(OpKind kind, p2p::Engine* engine, std::shared_ptr<const GroupState> group,
               const Tensor& tensor, int peer_world, int peer, int tag)
      : base::Operation(Kind::kPointToPoint),
        kind(kind),
        engine(engine),
        group(std::move(group)),
        tensor(tensor),
        peer_world(peer_world),
        peer(peer),
        tag(tag) {}

  std::string describe() const { return describe_op(kind, *group, peer, tag); }

  // base::Operation, for the Request handle (p2p/request_state.cc). A completed request
  // never touches its engine, which may be gone by now.
  bool test() override;
  void wait(Timeout timeout) override;
  bool cancel() override;
  Result result() const override { return {peer_world, tag, bytes, cancelled, peer}; }

  const OpKind kind;
  p2p::Engine* const engine;
  const std::shared_ptr<const GroupState> group;
  const Tensor tensor;
  // send: the destination; recv: the source filter (-1: any), then the actual source.
  int peer_world;
  int peer;            // group rank
  int tag;             // send: the tag; recv: the filter (-1: any), then the actual tag
  uint64_t bytes = 0;  // bytes of the message (known for a recv once matched)

  OpStage stage = OpStage::kPosted;
  uint64_t id = 0;         // send_id of a rendezvous send, recv_id of a matched large recv
  uint64_t received = 0;   // large recv: payload bytes arrived so far
  uint64_t posted = 0;     // recv: its posting number in its group's Matcher
  uint64_t remote_id = 0;  // large send being streamed: the receiver's recv_id
  // A collective's: the stamp of its call (collectives/call_stamp.h), which its messages
  // carry and which a message it receives must carry; 0 for point-to-point.
  uint64_t stamp = 0;
  bool user_async = false;  // counts towards the engine's outstanding asynchronous work
  // send: completes only once a receive has matched it (MPI_Ssend), so it never goes
  // eagerly, whatever its size.
  bool synchronous = false;
  bool abandoned = false;  // a blocking call gave up on it; its buffer is no longer ours
  bool cancelled = false;  // recv: withdrawn by Request::cancel before any message matched
  // recv: queued in its group's Matcher, which refers to it by plain pointer (see there).
  bool in_posted_queue = false;

  std::atomic<bool> done{false};
  std::exception_ptr error;  // set before done when the operation failed

  // GPUDirect RDMA (Engine::isend_device, irecv_device; docs/ARCHITECTURE.md, "Verbs"):
  // `device` is the CUDA device whose memory the payload moves from or into by RDMA, -1
  // for host memory. A send's `tensor` is that memory. A receive's `tensor` is its host
  // staging buffer and `device_target` the device tensor's memory (of `target_device`,
  // as large), which Engine::accept_rts takes instead, setting `device`, only once an
  // RTS shows a message above the eager limit: eager messages, which the CPU copies,
  // always land in the staging buffer.
  int device = -1;
  int target_device = -1;
  std::byte* device_target = nullptr;

  // A device receive staged through host memory: copies the message to the device.
  // Request::wait and is_completed run it once, after the engine has completed the
  // request without error and before they report it complete; `staging` keeps the
  // host buffer (of a send or a receive) alive until the request is dropped.
  std::function<void()> finish_on_device;
  std::once_flag finished_on_device;
  std::shared_ptr<void> staging;
  // Runs finish_on_device once, when the request has completed without error.
  void finish_device_copy();

  // While the operation is pending the engine keeps it alive through `self` (the caller
  // may drop its handle) and links it into its list of pending operations.
  std::shared_ptr<RequestState> self;
  RequestState* pending_prev = nullptr;
  RequestState* pending_next = nullptr;
};

}  // namespace weft::p2p

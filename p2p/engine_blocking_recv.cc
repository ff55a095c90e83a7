// Engine, the blocking receive: the mirror of send_eagerly_now. Open MPI's ob1 keeps a
// cached request for blocking receives; here the request is a local of the call, so a
// receive allocates nothing and touches no reference count of its own. The price is
// the rule that before the call returns, no engine structure may point at it.
#include <cstring>
#include <optional>

#include "p2p/engine.h"
#include "p2p/protocol.h"
#include "weft/error.h"

namespace weft::p2p {
namespace {

// A RequestPtr to a request this call owns: no control block, so copies of it in the
// engine's queues count nothing and free nothing.
Engine::RequestPtr borrowed(RequestState& request) {
  return Engine::RequestPtr(std::shared_ptr<void>(), &request);
}

}  // namespace

bool Engine::copy_out_eager(const Tensor& tensor, std::shared_ptr<UnexpectedMessage>& message) {
  const transport::FrameHeader& h = message->header;
  if (h.kind != static_cast<uint8_t>(FrameKind::kEager) || !message->payload_complete ||
      message->self_send || static_cast<DType>(h.dtype) != tensor.dtype() ||
      h.msg_bytes > tensor.bytes()) {
    return false;
  }
  if (h.msg_bytes > 0) std::memcpy(tensor.data(), message->payload.data(), h.msg_bytes);
  consume_credit(message->world_peer, h.msg_bytes);
  recycle(message);
  return true;
}

RecvResult Engine::recv(const GroupPtr& group, const Tensor& tensor, int src, int tag,
                        Timeout timeout) {
  std::optional<RequestState> request;
  {
    std::lock_guard<base::FutexMutex> lock(mutex_);
    note_caller_activity();
    if (closed()) std::rethrow_exception(refusal(describe_op(OpKind::kRecv, *group, src, tag)));
    // A message that arrived before its sender failed is still delivered.
    std::shared_ptr<UnexpectedMessage> message = matcher(group->comm).take_unexpected(src, tag);
    if (message) {
      const transport::FrameHeader h = message->header;  // copy_out_eager recycles it
      if (copy_out_eager(tensor, message)) {
        return RecvResult{group->world_ranks[h.src], h.tag, h.msg_bytes, h.src};
      }
    }
    const int peer_world = src < 0 ? -1 : group->world_ranks[src];
    if (peer_world >= 0 && peer_world != rank_) ensure_link(peer_world);  // as post_recv
    RequestState& r = request.emplace(OpKind::kRecv, this, group, tensor, peer_world, src, tag);
    RequestPtr ptr = borrowed(r);
    link_pending(ptr);
    if (message) {
      deliver_unexpected(ptr, message);  // a large one, a partial one, one it cannot take
      recycle(message);
    } else if (peer_world >= 0 && peer_world != rank_ && peers_[peer_world].failure) {
      fail(ptr, std::make_exception_ptr(peer_error(peer_world, r.describe())));
    } else {
      matcher(group->comm).add_posted(&r);
    }
  }
  RequestState& r = *request;
  try {
    RequestState* one[] = {&r};
    wait_any(one, timeout);
  } catch (const TimeoutError& e) {
    // abandon() withdraws it (and does nothing to one that completed meanwhile).
    abandon(borrowed(r),
            std::string(e.what()) + " (timeout " + std::to_string(timeout.count()) + " ms)");
    if (r.abandoned) note_timed_out_waiting_for(r.peer_world);
  } catch (...) {
    // Nothing else is expected from a wait, but the request must not outlive the call.
    abandon(borrowed(r), r.describe() + ": the wait was interrupted");
    std::lock_guard<base::FutexMutex> lock(mutex_);
    withdraw_receive(r);
    throw;
  }
  if (r.error) {
    // Failures fail a request where it stands (shutdown leaves it queued, say): unlink
    // it from whatever still refers to it before its frame goes.
    {
      std::lock_guard<base::FutexMutex> lock(mutex_);
      withdraw_receive(r);
    }
    std::rethrow_exception(r.error);
  }
  return RecvResult{r.peer_world, r.tag, r.bytes, r.peer};
}

}  // namespace weft::p2p

// Engine, probing (MPI_Iprobe/MPI_Probe): looking at the unexpected queue without
// taking from it. Every message no receive has taken yet waits there with its header
// (eager ones however much of their payload has arrived, large ones as their RTS, sends
// to self as a copy or a pending send), so the header's size and dtype are the message's
// whatever its protocol and transport. The search is the one a receive makes, so the
// next receive that matches the probed source and tag takes the probed message.
#include "p2p/engine.h"
#include "weft/error.h"

namespace weft::p2p {

std::optional<ProbeResult> Engine::iprobe(const p2p::GroupState& group, int src, int tag) {
  // Like test(): progress only if no other thread is polling (it makes the progress
  // then), but the lock is needed to read the queue either way.
  std::unique_lock<base::FutexMutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) {
    // A counter rather than iteration 0, so that a loop of iprobes reaches epoll now
    // and then, as a wait does.
    poll_for_caller(src < 0 ? -1 : group.world_ranks[src], iprobe_polls_++);
  } else {
    lock.lock();
  }
  return probed("iprobe", group, src, tag, crashes_);
}

std::shared_ptr<UnexpectedMessage> Engine::iclaim(const p2p::GroupState& group, int src, int tag) {
  std::unique_lock<base::FutexMutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) {
    poll_for_caller(src < 0 ? -1 : group.world_ranks[src], iprobe_polls_++);
  } else {
    lock.lock();
  }
  if (!probed("improbe", group, src, tag, crashes_)) return nullptr;
  return matcher(group.comm).take_unexpected(src, tag);
}

Engine::RequestPtr Engine::receive_claimed(GroupPtr group, const Tensor& tensor,
                                           const std::shared_ptr<UnexpectedMessage>& message) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  note_caller_activity();
  const transport::FrameHeader& h = message->header;
  RequestPtr r = make_request(OpKind::kRecv, std::move(group), tensor, h.src, h.tag);
  const int w = message->world_peer;
  if (closed()) {
    fail(r, refusal(r->describe()));
  } else if (w != rank_ && peers_[w].failure &&
             (!message->payload_complete || h.kind == static_cast<uint8_t>(FrameKind::kRts))) {
    // Its sender failed before the whole message was here: it never will be.
    fail(r, std::make_exception_ptr(peer_error(w, r->describe())));
  } else {
    deliver_unexpected(r, message);
  }
  count_if_outstanding(r);
  return r;
}

std::optional<ProbeResult> Engine::probed(const char* op, const p2p::GroupState& group, int src,
                                          int tag, uint64_t crashes_before) {
  if (closed()) std::rethrow_exception(refusal(p2p::describe_probe(op, group, src, tag)));
  // First the queue: a message that arrived before its sender failed is still received.
  if (const UnexpectedMessage* m = matcher(group.comm).find_unexpected(src, tag)) {
    const transport::FrameHeader& h = m->header;
    return ProbeResult{group.world_ranks[h.src], h.tag, h.msg_bytes, static_cast<DType>(h.dtype),
                       h.src};
  }
  // Then the errors a receive posted now (named source) or pending (any source) gets.
  auto dead = [&](int w) { return peer_error(w, p2p::describe_probe(op, group, src, tag)); };
  if (src >= 0) {
    const int w = group.world_ranks[src];
    if (w != rank_ && peers_[w].failure) throw dead(w);
  } else if (crashes_ != crashes_before) {
    for (int w : group.world_ranks) {
      if (peers_[w].crash_number > crashes_before) throw dead(w);
    }
  }
  return std::nullopt;
}

}  // namespace weft::p2p

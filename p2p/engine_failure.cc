// Engine, failures: dead links, abandoned and cancelled requests, and shutting down.
#include <sys/epoll.h>

#include "base/log.h"
#include "p2p/engine.h"
#include "p2p/protocol.h"
#include "weft/error.h"

namespace weft::p2p {

using p2p::OpKind;
using p2p::OpStage;
using p2p::RequestState;
using transport::FrameHeader;

void Engine::protocol_error(int world_peer, const std::string& what) {
  WEFT_LOG(WARN) << "protocol error from " << peer_name(world_peer) << ": " << what
                 << "; closing the link";
  on_link_failed(world_peer,
                 base::Failure(ErrorCode::kPeer, "protocol error: " + what, world_peer));
}

void Engine::on_link_failed(int peer, const base::Failure& link_failure) {
  Peer& p = peers_[peer];
  if (p.failure) return;
  if (p.left && p.left_after >= 0) {
    // It left because another rank failed: that rank is the one to blame, so that every
    // rank names the same culprit whichever failure reached it first.
    p.failure = base::Failure(ErrorCode::kPeer,
                              peer_name(peer) + " has left the job after it lost " +
                                  peer_name(p.left_after) + ", the first rank to fail",
                              p.left_after);
    WEFT_LOG(INFO) << p.failure.why();
  } else if (p.left) {
    p.failure = base::Failure(
        ErrorCode::kPeer, peer_name(peer) + " has left the job (it called destroy_process_group)",
        peer);
    WEFT_LOG(INFO) << p.failure.why();
  } else {
    p.failure =
        base::Failure(ErrorCode::kPeer,
                      "lost the connection to " + peer_name(peer) + ": " + link_failure.why() +
                          "; the process has probably exited or been killed",
                      peer);
    p.crash_number = ++crashes_;
    WEFT_LOG(WARN) << p.failure.why();
  }
  if (p.link) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, p.link->poll_fd(), nullptr);
  p.incoming = Incoming{};

  // Everything that waits on this peer fails now. After a crash, any-source receives of
  // its groups fail too, since the dead peer may have been the sender they wait for; a
  // peer that left in good order has delivered everything it sent, so they stay.
  std::vector<RequestPtr> doomed;
  for (const RequestPtr& request : pending_requests()) {
    bool member = false;
    for (int w : request->group->world_ranks) member = member || w == peer;
    bool involved = request->peer_world == peer || (!p.left && request->kind == OpKind::kRecv &&
                                                    request->peer_world < 0 && member);
    if (involved) doomed.push_back(request);
  }
  for (const RequestPtr& r : doomed) {
    if (r->in_posted_queue) matcher(r->group->comm).remove_posted(r.get());
    if (r->id != 0) {
      if (r->kind == OpKind::kSend)
        rendezvous_sends_.erase(r->id);
      else
        active_recvs_.erase(r->id);
    }
    fail(r, std::make_exception_ptr(peer_error(peer, r->describe())));
  }
  // Abandoned large receives from it will get no more payload.
  for (auto it = active_recvs_.begin(); it != active_recvs_.end();) {
    it = it->second->peer_world == peer ? active_recvs_.erase(it) : std::next(it);
  }
  // Messages whose payload can no longer arrive (partial eager ones, announced large
  // ones) are dropped; complete eager messages stay receivable.
  for (auto& c : comms_) {
    if (c)
      c->matcher.drop_unexpected_if([peer](const UnexpectedMessage& msg) {
        return msg.world_peer == peer &&
               (!msg.payload_complete || msg.header.kind == static_cast<uint8_t>(FrameKind::kRts));
      });
  }
}

void Engine::throw_if_failed(std::span<const int> world_peers, int awaited) {
  std::unique_lock<base::FutexMutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // whoever holds it is polling the links
  if (shut_down_) {
    throw Error(ErrorCode::kState,
                "destroy_process_group was called while this operation was "
                "pending");
  }
  poll_links();
  if (aborted_) aborted_.raise();
  for (int w : world_peers) {
    const Peer& p = peers_[w];
    const bool left_in_good_order = p.left && p.left_after < 0;
    if (w != rank_ && p.failure && (w == awaited || !left_in_good_order)) {
      throw peer_error(w, "");
    }
  }
}

bool Engine::cancel_receive(RequestState& request) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  if (request.done.load(std::memory_order_relaxed) || request.kind != OpKind::kRecv ||
      !request.in_posted_queue || !matcher(request.group->comm).remove_posted(&request)) {
    return false;
  }
  RequestPtr r = request.self;  // the engine's own reference, while it is pending
  r->cancelled = true;
  r->bytes = 0;
  complete(r);
  return true;
}

void Engine::abandon(const RequestPtr& r, const std::string& why, int reason) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  if (r->done.load(std::memory_order_relaxed)) return;
  r->abandoned = true;
  if (r->kind == OpKind::kRecv) {
    // The rest of its payload, if any, is discarded as a withdrawn message's is.
    withdraw_receive(*r);
  } else {
    withdraw_send(r, reason);
  }
  fail(r, std::make_exception_ptr(TimeoutError(why)));
}

void Engine::withdraw_send(const RequestPtr& r, int reason) {
  if (r->peer_world == rank_) {
    // A large send to this process itself: withdraw it from the unexpected queue.
    matcher(r->group->comm).drop_unexpected_if([&](const UnexpectedMessage& m) {
      return m.self_send == r;
    });
    return;
  }
  Peer& p = peers_[r->peer_world];
  if (r->stage == OpStage::kAwaitingCts) {
    rendezvous_sends_.erase(r->id);
    withdrawn_sends_[r->id] = reason;
  }
  if (p.link && !p.link->failed()) {
    bool stream_dropped = p.link->abandon(r.get());
    if (r->stage == OpStage::kStreaming) {
      rendezvous_sends_.erase(r->id);
      if (stream_dropped) {
        FrameHeader cancel = control_header(FrameKind::kCancel);
        cancel.recv_id = r->remote_id;
        cancel.src = reason;
        send_control(r->peer_world, cancel);
      }
    }
  }
}

void Engine::withdraw_receive(RequestState& r) {
  if (r.in_posted_queue) matcher(r.group->comm).remove_posted(&r);
  if (r.id != 0) {
    auto it = active_recvs_.find(r.id);
    if (it != active_recvs_.end() && it->second.get() == &r) active_recvs_.erase(it);
  }
  // A payload arriving now: the rest of it is discarded (its credit is still returned
  // when it ends), and a message it claimed goes to no receive.
  for (Peer& p : peers_) {
    Incoming& in = p.incoming;
    if (in.to == Incoming::To::kRecv && in.recv.get() == &r) {
      in.to = Incoming::To::kNothing;
      in.recv.reset();
      if (p.link) p.link->withdraw_incoming();  // a verbs peer may be writing into it
    } else if (in.to == Incoming::To::kUnexpected && in.message->claimed_by.get() == &r) {
      in.message->claimed_by.reset();
    }
  }
}

int Engine::root_cause() const {
  for (int r = 0; r < world_size(); ++r) {
    if (peers_[r].crash_number == 1) return r;
  }
  if (aborted_ && aborted_.peer() >= 0) return aborted_.peer();
  // A peer that left after another failed passes that cause on.
  for (int r = 0; r < world_size(); ++r) {
    if (peers_[r].failure && peers_[r].left_after >= 0) return peers_[r].left_after;
  }
  return -1;
}

std::exception_ptr Engine::refusal(const std::string& what) const {
  if (shut_down_) {
    return std::make_exception_ptr(
        Error(ErrorCode::kState, what + ": the process group has been destroyed"));
  }
  return aborted_.as_exception(what);
}

void Engine::abort(const std::string& reason) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  if (shut_down_ || aborted_) return;
  base::Failure why(ErrorCode::kState, "weft::abort was called on this rank (" + peer_name(rank_) +
                                           ")" + (reason.empty() ? "" : ": " + reason));
  WEFT_LOG(WARN) << why.why() << "; failing every pending operation and telling every peer";
  // The peers first: their pending operations fail while this rank fails its own.
  send_to_every_peer(control_header(FrameKind::kAbort));
  abort_locked(std::move(why));
}

void Engine::send_to_every_peer(const FrameHeader& header) {
  // Connections peers dialed and the engine has not adopted yet carry it too: a peer
  // that dialed to receive from this rank waits on one of those.
  if (lazy_) adopt_dialed();
  for (Peer& p : peers_) {
    if (!p.link || p.link->failed()) continue;
    try {
      p.link->send(header, nullptr, nullptr);
    } catch (const Error&) {
      // Its link just failed: that peer learns of this process through the failure.
    }
  }
}

void Engine::abort_locked(base::Failure why) {
  aborted_ = std::move(why);
  for (const RequestPtr& r : pending_requests()) {
    if (r->kind == OpKind::kSend && r->peer_world != rank_) {
      Peer& p = peers_[r->peer_world];
      if (p.link && !p.link->failed()) p.link->abandon(r.get());
      if (r->id != 0) rendezvous_sends_.erase(r->id);
    } else if (r->kind == OpKind::kRecv) {
      withdraw_receive(*r);
    }
    fail(r, aborted_.as_exception(r->describe()));
  }
}

void Engine::shutdown(std::chrono::milliseconds drain) {
  {
    std::lock_guard<base::FutexMutex> lock(mutex_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  progress_cv_.notify_all();
  if (progress_thread_.joinable()) progress_thread_.join();

  std::lock_guard<base::FutexMutex> lock(mutex_);
  for (const RequestPtr& r : pending_requests()) {
    bool eager_in_flight = r->kind == OpKind::kSend && r->stage == OpStage::kEagerQueued;
    if (r->kind == OpKind::kSend && r->peer_world != rank_) {
      Peer& p = peers_[r->peer_world];
      if (p.link && !p.link->failed()) p.link->abandon(r.get());
    }
    // An eager message already queued is still delivered by the drain below.
    std::string what = eager_in_flight ? "; the message is still delivered" : "";
    fail(r, std::make_exception_ptr(
                Error(ErrorCode::kState, r->describe() +
                                             ": destroy_process_group was called while "
                                             "this operation was pending" +
                                             what)));
  }
  base::Deadline deadline = base::Deadline::after(drain);
  FrameHeader goodbye = control_header(FrameKind::kGoodbye);
  goodbye.src = root_cause();
  if (lazy_) lazy_->leaving(goodbye.src);  // for the peers it has no link to
  send_to_every_peer(goodbye);
  for (auto& p : peers_) {
    if (p.link && !p.link->failed()) p.link->drain_and_close(deadline.poll_ms());
  }
}

}  // namespace weft::p2p

#include "core/p2p/engine.h"

#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstring>

#include "core/base/log.h"
#include "core/p2p/protocol.h"
#include "weft/error.h"

namespace weft::core {
namespace {

using detail::OpKind;
using detail::OpStage;
using detail::RequestState;
using transport::FrameHeader;

constexpr int kMaxEvents = 64;
// Group ids beyond this in a frame mean a corrupt stream, not a real group.
constexpr uint32_t kMaxComms = 1u << 20;
// A sleeping waiter re-checks at least this often, for completions that happen without
// any socket activity it could see (another thread matching a message to itself).
constexpr int kSleepSliceMs = 10;
// The progress thread leaves the links alone while callers have polled them within
// this interval: the caller is between two weft calls, not computing.
constexpr auto kProgressGrace = std::chrono::microseconds(200);
// A spinning waiter reads the clock once per this many polls; each poll is a system
// call already, so the deadline is still checked every few microseconds.
constexpr unsigned kPollsPerClockRead = 8;

FrameHeader make_header(FrameKind kind) {
  FrameHeader h;
  h.kind = static_cast<uint8_t>(kind);
  return h;
}

}  // namespace

const char* frame_kind_name(uint8_t kind) {
  switch (static_cast<FrameKind>(kind)) {
    case FrameKind::kEager:
      return "EAGER";
    case FrameKind::kRts:
      return "RTS";
    case FrameKind::kCts:
      return "CTS";
    case FrameKind::kData:
      return "DATA";
    case FrameKind::kCancel:
      return "CANCEL";
    case FrameKind::kCredit:
      return "CREDIT";
    case FrameKind::kGoodbye:
      return "GOODBYE";
  }
  return "unknown";
}

Engine::Engine(int world_rank, std::vector<PeerInfo> peers, EngineOptions options)
    : rank_(world_rank), options_(options), peers_(peers.size()) {
  for (size_t r = 0; r < peers.size(); ++r) {
    peers_[r].info = std::move(peers[r]);
    peers_[r].eager_credit = options_.eager_window;
  }
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw Error(ErrorCode::kInternal, std::string("epoll_create1: ") + std::strerror(errno));
}

Engine::~Engine() {
  shutdown(std::chrono::milliseconds(0));
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void Engine::add_link(std::unique_ptr<transport::Link> link) {
  Peer& p = peers_.at(link->peer());
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &p;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, link->poll_fd(), &ev) != 0) {
    throw Error(ErrorCode::kInternal, std::string("epoll_ctl: ") + std::strerror(errno));
  }
  p.link = std::move(link);
}

void Engine::start() {
  progress_thread_ = std::thread([this] { progress_loop(); });
}

std::string Engine::peer_name(int world_rank) const {
  const PeerInfo& info = peers_.at(world_rank).info;
  return "rank " + std::to_string(world_rank) + " (" + info.hostname + ":" +
         std::to_string(info.pid) + ")";
}

// ---------------------------------------------------------------------------------------
// Posting operations

Engine::RequestPtr Engine::make_request(OpKind kind, GroupPtr group, const Tensor& tensor, int peer,
                                        int tag, bool user_async) {
  int peer_world = peer < 0 ? -1 : group->world_ranks[peer];
  auto r =
      std::make_shared<RequestState>(kind, this, std::move(group), tensor, peer_world, peer, tag);
  r->user_async = user_async;
  if (user_async) {
    if (async_outstanding_++ == 0 && blocking_waiters_ == 0) progress_cv_.notify_one();
  }
  link_pending(r);
  return r;
}

void Engine::link_pending(const RequestPtr& r) {
  r->self = r;
  r->pending_next = pending_head_;
  if (pending_head_) pending_head_->pending_prev = r.get();
  pending_head_ = r.get();
}

void Engine::unlink_pending(RequestState& r) {
  if (r.pending_prev) r.pending_prev->pending_next = r.pending_next;
  if (r.pending_next) r.pending_next->pending_prev = r.pending_prev;
  if (pending_head_ == &r) pending_head_ = r.pending_next;
  r.pending_prev = r.pending_next = nullptr;
  r.self.reset();  // may free r if the engine held the last reference
}

std::vector<Engine::RequestPtr> Engine::pending_requests() const {
  std::vector<RequestPtr> out;
  for (RequestState* r = pending_head_; r != nullptr; r = r->pending_next) out.push_back(r->self);
  return out;
}

Engine::Comm& Engine::comm(uint32_t id) {
  if (id >= comms_.size()) comms_.resize(id + 1);
  if (!comms_[id]) {
    comms_[id] = std::make_unique<Comm>();
    comms_[id]->send_seq.assign(peers_.size(), 0);
    comms_[id]->recv_seq.assign(peers_.size(), 0);
  }
  return *comms_[id];
}

void Engine::complete(const RequestPtr& request, std::exception_ptr error) {
  if (request->done.load(std::memory_order_relaxed)) return;
  RequestPtr keep = request;  // unlinking may drop the engine's reference
  keep->stage = OpStage::kDone;
  keep->error = error;
  unlink_pending(*keep);
  if (keep->user_async) --async_outstanding_;
  keep->done.store(true, std::memory_order_release);
}

Engine::RequestPtr Engine::isend(GroupPtr group, const Tensor& tensor, int dst, int tag,
                                 bool user_async) {
  std::lock_guard<std::mutex> lock(mutex_);
  caller_activity_.fetch_add(1, std::memory_order_relaxed);
  RequestPtr r = make_request(OpKind::kSend, group, tensor, dst, tag, user_async);
  r->bytes = tensor.bytes();
  if (shut_down_) {
    fail(r, std::make_exception_ptr(Error(
                ErrorCode::kState, r->describe() + ": the process group has been destroyed")));
    return r;
  }
  if (r->peer_world == rank_) {
    send_to_self(r);
    return r;
  }
  Peer& p = peers_[r->peer_world];
  if (p.link->failed()) p.link->progress();  // reports a failure not yet seen
  if (!p.failure.empty()) {
    fail(r, std::make_exception_ptr(PeerError(r->peer_world, r->describe() + ": " + p.failure)));
    return r;
  }
  FrameHeader h = message_header(*group, tensor, tag, r->peer_world);
  uint64_t charge = r->bytes + kEagerOverheadBytes;
  if (r->bytes <= options_.eager_limit && charge <= p.eager_credit) {
    p.eager_credit -= charge;
    h.kind = static_cast<uint8_t>(FrameKind::kEager);
    h.payload_bytes = r->bytes;
    r->stage = OpStage::kEagerQueued;
    if (p.link->send(h, tensor.data(), r.get())) complete(r);
  } else {
    r->id = next_id_++;
    h.kind = static_cast<uint8_t>(FrameKind::kRts);
    h.send_id = r->id;
    r->stage = OpStage::kAwaitingCts;
    rendezvous_sends_.emplace(r->id, r);
    p.link->send(h, nullptr, nullptr);
  }
  after_send(p);
  return r;
}

FrameHeader Engine::message_header(const detail::GroupState& group, const Tensor& tensor, int tag,
                                   int world_peer) {
  FrameHeader h;
  h.dtype = static_cast<uint8_t>(tensor.dtype());
  h.comm = group.comm;
  h.tag = tag;
  h.src = group.rank;
  h.seq = comm(group.comm).send_seq[world_peer]++;
  h.msg_bytes = tensor.bytes();
  return h;
}

bool Engine::send_eagerly_now(const GroupPtr& group, const Tensor& tensor, int dst, int tag) {
  std::lock_guard<std::mutex> lock(mutex_);
  int world_peer = group->world_ranks[dst];
  if (shut_down_ || world_peer == rank_) return false;
  Peer& p = peers_[world_peer];
  if (!p.link || !p.failure.empty() || p.link->failed()) return false;
  uint64_t bytes = tensor.bytes(), charge = bytes + kEagerOverheadBytes;
  if (bytes > options_.eager_limit || charge > p.eager_credit) return false;
  caller_activity_.fetch_add(1, std::memory_order_relaxed);
  FrameHeader h = message_header(*group, tensor, tag, world_peer);
  h.kind = static_cast<uint8_t>(FrameKind::kEager);
  h.payload_bytes = bytes;
  p.eager_credit -= charge;
  p.link->send(h, tensor.data(), nullptr);
  after_send(p);
  if (!p.failure.empty())
    throw PeerError(world_peer, "send by rank " + std::to_string(group->rank) + " to rank " +
                                    std::to_string(dst) + " (tag " + std::to_string(tag) +
                                    ", group " + group->name + "): " + p.failure);
  return true;
}

Engine::RequestPtr Engine::irecv(GroupPtr group, const Tensor& tensor, int src, int tag,
                                 bool user_async) {
  std::lock_guard<std::mutex> lock(mutex_);
  caller_activity_.fetch_add(1, std::memory_order_relaxed);
  RequestPtr r = make_request(OpKind::kRecv, group, tensor, src, tag, user_async);
  if (shut_down_) {
    fail(r, std::make_exception_ptr(Error(
                ErrorCode::kState, r->describe() + ": the process group has been destroyed")));
    return r;
  }
  // A message that arrived before its sender failed is still delivered.
  if (auto message = matcher(r->group->comm).take_unexpected(src, tag)) {
    deliver_unexpected(r, message);
    return r;
  }
  if (r->peer_world >= 0 && r->peer_world != rank_ && !peers_[r->peer_world].failure.empty()) {
    fail(r, std::make_exception_ptr(
                PeerError(r->peer_world, r->describe() + ": " + peers_[r->peer_world].failure)));
    return r;
  }
  matcher(r->group->comm).add_posted(r);
  return r;
}

void Engine::send_to_self(const RequestPtr& send) {
  const detail::GroupState& g = *send->group;
  FrameHeader h;
  h.dtype = static_cast<uint8_t>(send->tensor.dtype());
  h.comm = g.comm;
  h.tag = send->tag;
  h.src = g.rank;
  h.msg_bytes = send->bytes;
  if (RequestPtr recv = matcher(g.comm).take_posted(g.rank, send->tag)) {
    std::string why = misfit(*recv, h);
    if (!why.empty()) {
      fail(recv, std::make_exception_ptr(InvalidArgument(why)));
    } else {
      take_message_fields(*recv, h);
      if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), send->tensor.data(), h.msg_bytes);
      complete(recv);
    }
    complete(send);
    return;
  }
  auto message = std::make_shared<UnexpectedMessage>();
  message->world_peer = rank_;
  if (send->bytes <= options_.eager_limit) {
    // Small: buffer a copy so the send completes now, as an eager send would.
    h.kind = static_cast<uint8_t>(FrameKind::kEager);
    message->header = h;
    auto* data = static_cast<const std::byte*>(send->tensor.data());
    message->payload.assign(data, data + send->bytes);
    message->payload_complete = true;
    matcher(g.comm).add_unexpected(message);
    complete(send);
  } else {
    // Large: the send waits for a matching receive, which copies from its buffer.
    h.kind = static_cast<uint8_t>(FrameKind::kRts);
    message->header = h;
    message->self_send = send;
    send->stage = OpStage::kAwaitingCts;
    matcher(g.comm).add_unexpected(message);
  }
}

std::string Engine::misfit(const RequestState& recv, const FrameHeader& h) const {
  auto dtype = static_cast<DType>(h.dtype);
  if (dtype == recv.tensor.dtype() && h.msg_bytes <= recv.tensor.bytes()) return {};
  std::string who = "rank " + std::to_string(h.src) + " (tag " + std::to_string(h.tag) + ")";
  if (dtype != recv.tensor.dtype()) {
    return recv.describe() + ": " + who + " sent " + dtype_name(dtype) +
           " data but the receive buffer is " + dtype_name(recv.tensor.dtype()) +
           "; nothing was written";
  }
  if (h.msg_bytes > recv.tensor.bytes()) {
    return recv.describe() + ": the message from " + who + " has " + std::to_string(h.msg_bytes) +
           " bytes but the receive buffer holds " + std::to_string(recv.tensor.bytes()) +
           "; nothing was written";
  }
  return {};
}

void Engine::take_message_fields(RequestState& recv, const FrameHeader& h) {
  recv.peer = h.src;
  recv.peer_world = recv.group->world_ranks[h.src];
  recv.tag = h.tag;
  recv.bytes = h.msg_bytes;
}

void Engine::deliver_unexpected(const RequestPtr& recv,
                                const std::shared_ptr<UnexpectedMessage>& message) {
  const FrameHeader& h = message->header;
  std::string why = misfit(*recv, h);
  if (message->self_send) {
    RequestPtr send = message->self_send;
    if (why.empty()) {
      take_message_fields(*recv, h);
      if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), send->tensor.data(), h.msg_bytes);
      complete(recv);
    } else {
      fail(recv, std::make_exception_ptr(InvalidArgument(why)));
    }
    complete(send);
    return;
  }
  if (h.kind == static_cast<uint8_t>(FrameKind::kRts)) {
    accept_rts(recv, h, message->world_peer);
    return;
  }
  // Eager.
  if (!why.empty()) {
    fail(recv, std::make_exception_ptr(InvalidArgument(why)));
    if (message->payload_complete) {
      consume_credit(message->world_peer, h.msg_bytes);
    } else {
      message->claimed = true;  // its credit is returned once the payload has arrived
    }
    return;
  }
  take_message_fields(*recv, h);
  if (!message->payload_complete) {
    recv->stage = OpStage::kStreaming;
    message->claimed = true;
    message->claimed_by = recv;
    return;
  }
  if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), message->payload.data(), h.msg_bytes);
  consume_credit(message->world_peer, h.msg_bytes);
  complete(recv);
}

void Engine::accept_rts(const RequestPtr& recv, const FrameHeader& rts, int world_peer) {
  if (world_peer != rank_ && !peers_[world_peer].failure.empty()) {
    fail(recv, std::make_exception_ptr(
                   PeerError(world_peer, recv->describe() + ": " + peers_[world_peer].failure)));
    return;
  }
  FrameHeader cts = make_header(FrameKind::kCts);
  cts.send_id = rts.send_id;
  std::string why = misfit(*recv, rts);
  if (!why.empty() || rts.msg_bytes == 0) {
    // recv_id 0 declines: the sender completes without sending its payload.
    send_control(world_peer, cts);
    if (why.empty()) {
      take_message_fields(*recv, rts);
      complete(recv);
    } else {
      fail(recv, std::make_exception_ptr(InvalidArgument(why)));
    }
    return;
  }
  take_message_fields(*recv, rts);
  recv->id = next_id_++;
  recv->stage = OpStage::kStreaming;
  active_recvs_.emplace(recv->id, recv);
  cts.recv_id = recv->id;
  send_control(world_peer, cts);
}

void Engine::consume_credit(int world_peer, uint64_t bytes) {
  if (world_peer == rank_) return;
  Peer& p = peers_[world_peer];
  p.credit_owed += bytes + kEagerOverheadBytes;
  // Return credit in batches: often enough that a streaming sender never stalls on an
  // idle window, rarely enough to cost little.
  if (p.credit_owed >= options_.eager_window / 4) {
    FrameHeader credit = make_header(FrameKind::kCredit);
    credit.msg_bytes = p.credit_owed;
    p.credit_owed = 0;
    send_control(world_peer, credit);
  }
}

void Engine::send_control(int world_peer, const FrameHeader& header) {
  Peer& p = peers_[world_peer];
  if (!p.failure.empty() || !p.link || p.link->failed()) return;
  p.link->send(header, nullptr, nullptr);
  after_send(p);
}

void Engine::after_send(Peer& p) {
  if (p.link->failed()) {
    p.link->progress();  // reports the failure through on_link_failed
    return;
  }
  watch_output(p);
}

void Engine::watch_output(Peer& p) {
  if (!p.link || !p.failure.empty()) return;
  bool want = p.link->wants_write();
  if (want == p.watching_output) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (want ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.ptr = &p;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, p.link->poll_fd(), &ev);
  p.watching_output = want;
}

// ---------------------------------------------------------------------------------------
// Incoming frames

void Engine::on_frame(int peer, const FrameHeader& h) {
  Peer& p = peers_[peer];
  p.incoming = Incoming{};
  switch (static_cast<FrameKind>(h.kind)) {
    case FrameKind::kEager:
    case FrameKind::kRts: {
      if (h.comm >= kMaxComms)
        return protocol_error(peer, "group id " + std::to_string(h.comm) + " out of range");
      uint64_t& expected = comm(h.comm).recv_seq[peer];
      if (h.seq != expected) {
        return protocol_error(peer, "message sequence " + std::to_string(h.seq) + " where " +
                                        std::to_string(expected) + " was due");
      }
      ++expected;
      Matcher& m = matcher(h.comm);
      RequestPtr recv = m.take_posted(h.src, h.tag);
      if (h.kind == static_cast<uint8_t>(FrameKind::kRts)) {
        if (recv) {
          accept_rts(recv, h, peer);
        } else {
          auto message = std::make_shared<UnexpectedMessage>();
          message->header = h;
          message->world_peer = peer;
          message->payload_complete = true;
          m.add_unexpected(message);
        }
        return;
      }
      if (recv) {
        std::string why = misfit(*recv, h);
        if (!why.empty()) {
          fail(recv, std::make_exception_ptr(InvalidArgument(why)));
          return;  // the payload is discarded
        }
        take_message_fields(*recv, h);
        recv->stage = OpStage::kStreaming;
        p.incoming.to = Incoming::To::kRecv;
        p.incoming.recv = recv;
        return;
      }
      auto message = std::make_shared<UnexpectedMessage>();
      message->header = h;
      message->world_peer = peer;
      message->payload.resize(h.payload_bytes);
      m.add_unexpected(message);
      p.incoming.to = Incoming::To::kUnexpected;
      p.incoming.message = message;
      return;
    }
    case FrameKind::kCts: {
      auto it = rendezvous_sends_.find(h.send_id);
      if (it == rendezvous_sends_.end()) {
        // The send was withdrawn after a timeout: tell the receiver.
        if (h.recv_id != 0) {
          FrameHeader cancel = make_header(FrameKind::kCancel);
          cancel.recv_id = h.recv_id;
          send_control(peer, cancel);
        }
        return;
      }
      RequestPtr send = it->second;
      if (h.recv_id == 0) {
        rendezvous_sends_.erase(it);
        complete(send);
        return;
      }
      FrameHeader data = make_header(FrameKind::kData);
      data.recv_id = h.recv_id;
      data.send_id = h.send_id;
      data.msg_bytes = send->bytes;
      send->stage = OpStage::kStreaming;
      send->remote_id = h.recv_id;  // kept to cancel the stream if the send is abandoned
      p.link->send_stream(data, send->tensor.data(), send->bytes, send.get());
      after_send(p);
      return;
    }
    case FrameKind::kData: {
      auto it = active_recvs_.find(h.recv_id);
      if (it == active_recvs_.end()) return;  // abandoned: discard
      if (h.offset + h.payload_bytes > it->second->bytes) {
        return protocol_error(peer, "payload piece beyond the end of its message");
      }
      p.incoming.to = Incoming::To::kRecv;
      p.incoming.recv = it->second;
      p.incoming.base = h.offset;
      return;
    }
    case FrameKind::kCancel: {
      auto it = active_recvs_.find(h.recv_id);
      if (it == active_recvs_.end()) return;
      RequestPtr recv = it->second;
      active_recvs_.erase(it);
      fail(recv, std::make_exception_ptr(
                     PeerError(peer, recv->describe() + ": " + peer_name(peer) +
                                         " withdrew the message after its send timed out (" +
                                         std::to_string(recv->received) + " of " +
                                         std::to_string(recv->bytes) + " bytes had arrived)")));
      return;
    }
    case FrameKind::kCredit:
      p.eager_credit += h.msg_bytes;
      return;
    case FrameKind::kGoodbye:
      p.left = true;
      return;
  }
  protocol_error(peer, std::string("unknown frame kind ") + std::to_string(h.kind));
}

std::byte* Engine::payload_target(int peer, const FrameHeader& h, uint64_t offset) {
  Incoming& in = peers_[peer].incoming;
  switch (in.to) {
    case Incoming::To::kRecv:
      if (in.recv->done.load(std::memory_order_relaxed) || in.recv->abandoned) return nullptr;
      return static_cast<std::byte*>(in.recv->tensor.data()) + in.base + offset;
    case Incoming::To::kUnexpected:
      return in.message->payload.data() + offset;
    case Incoming::To::kNothing:
      break;
  }
  return nullptr;
}

void Engine::on_payload_done(int peer, const FrameHeader& h) {
  Incoming in = std::move(peers_[peer].incoming);
  peers_[peer].incoming = Incoming{};
  auto kind = static_cast<FrameKind>(h.kind);
  if (kind == FrameKind::kEager) {
    if (in.to == Incoming::To::kUnexpected) {
      in.message->payload_complete = true;
      if (in.message->claimed) {
        RequestPtr recv = std::move(in.message->claimed_by);
        if (recv && !recv->done.load(std::memory_order_relaxed) && !recv->abandoned) {
          if (h.msg_bytes > 0)
            std::memcpy(recv->tensor.data(), in.message->payload.data(), h.msg_bytes);
          complete(recv);
        }
        consume_credit(peer, h.msg_bytes);
      }
      return;  // otherwise the credit is returned when a receive takes the message
    }
    consume_credit(peer, h.msg_bytes);
    if (in.to == Incoming::To::kRecv) complete(in.recv);
    return;
  }
  if (kind == FrameKind::kData && in.to == Incoming::To::kRecv) {
    RequestPtr recv = in.recv;
    recv->received += h.payload_bytes;
    if (recv->received == recv->bytes) {
      active_recvs_.erase(recv->id);
      complete(recv);
    }
  }
}

void Engine::on_sent(int peer, void* cookie) {
  // Cookies are pending sends: a link reports nothing for a send once it is completed
  // or abandoned.
  auto* state = static_cast<RequestState*>(cookie);
  if (state->done.load(std::memory_order_relaxed)) return;
  RequestPtr send = state->self;
  if (send->stage == OpStage::kStreaming) rendezvous_sends_.erase(send->id);
  complete(send);
}

void Engine::protocol_error(int world_peer, const std::string& what) {
  WEFT_LOG(WARN) << "protocol error from " << peer_name(world_peer) << ": " << what
                 << "; closing the link";
  on_link_failed(world_peer, "protocol error: " + what);
}

void Engine::on_link_failed(int peer, const std::string& why) {
  Peer& p = peers_[peer];
  if (!p.failure.empty()) return;
  if (p.left) {
    p.failure = peer_name(peer) + " has left the job (it called destroy_process_group)";
    WEFT_LOG(INFO) << p.failure;
  } else {
    p.failure = "lost the connection to " + peer_name(peer) + ": " + why +
                "; the process has probably exited or been killed";
    WEFT_LOG(WARN) << p.failure;
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
    if (r->kind == OpKind::kRecv && r->stage == OpStage::kPosted) {
      matcher(r->group->comm).remove_posted(r.get());
    }
    if (r->id != 0) {
      if (r->kind == OpKind::kSend)
        rendezvous_sends_.erase(r->id);
      else
        active_recvs_.erase(r->id);
    }
    fail(r, std::make_exception_ptr(PeerError(peer, r->describe() + ": " + p.failure)));
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

// ---------------------------------------------------------------------------------------
// Progress and waiting

void Engine::poll_links() {
  epoll_event events[kMaxEvents];
  int n = epoll_wait(epoll_fd_, events, kMaxEvents, 0);
  for (int i = 0; i < n; ++i) {
    Peer& p = *static_cast<Peer*>(events[i].data.ptr);
    if (!p.link || !p.failure.empty()) continue;
    p.link->progress();
    watch_output(p);
  }
}

void Engine::poll_for_caller(const RequestState* request, unsigned iteration) {
  caller_activity_.fetch_add(1, std::memory_order_relaxed);
  int peer = request ? request->peer_world : -1;
  if (peer >= 0 && peer != rank_ && iteration % 8 != 7) {
    Peer& p = peers_[peer];
    if (p.link && p.failure.empty()) {
      p.link->progress();
      watch_output(p);
      return;
    }
  }
  poll_links();
}

bool Engine::test(RequestState& request) {
  if (request.done.load(std::memory_order_acquire)) return true;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) poll_for_caller(&request, 0);
  return request.done.load(std::memory_order_acquire);
}

void Engine::wait(RequestState& request, Deadline deadline) {
  if (!request.done.load(std::memory_order_acquire)) {
    blocking_waiters_.fetch_add(1);
    struct Leave {
      Engine* e;
      ~Leave() {
        if (e->blocking_waiters_.fetch_sub(1) == 1 && e->async_outstanding_.load() > 0) {
          // The progress thread is needed again; wake it under the lock so that the
          // wake-up cannot slip between its predicate check and its sleep.
          std::lock_guard<std::mutex> lock(e->mutex_);
          e->progress_cv_.notify_one();
        }
      }
    } leave{this};
    auto spin_until = Deadline::Clock::now() + options_.spin;
    bool spinning = true;
    for (unsigned iteration = 0;; ++iteration) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        poll_for_caller(&request, iteration);
      }
      if (request.done.load(std::memory_order_acquire)) break;
      if (spinning && iteration % kPollsPerClockRead != 0) continue;
      if (deadline.expired()) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!request.done.load(std::memory_order_acquire)) {
          throw TimeoutError(request.describe() + ": not completed before the deadline; " +
                             pending_state(request));
        }
        break;
      }
      if (spinning && Deadline::Clock::now() < spin_until) {
        // Ranks outnumber cores: let the peer we wait for run.
        if (options_.oversubscribed) sched_yield();
        continue;
      }
      spinning = false;
      epoll_event event;
      epoll_wait(epoll_fd_, &event, 1, deadline.poll_ms(kSleepSliceMs));
    }
  }
  if (request.error) std::rethrow_exception(request.error);
}

std::string Engine::pending_state(const RequestState& r) {
  if (r.done) return "completed";
  if (r.kind == OpKind::kRecv) {
    if (r.stage == OpStage::kPosted) return "no matching message has arrived";
    return "the message from rank " + std::to_string(r.peer) + " is arriving (" +
           std::to_string(r.received) + " of " + std::to_string(r.bytes) + " bytes)";
  }
  switch (r.stage) {
    case OpStage::kEagerQueued:
      return "the message is still being written to " + peer_name(r.peer_world);
    case OpStage::kAwaitingCts:
      return peer_name(r.peer_world) + " has not posted a matching receive";
    case OpStage::kStreaming:
      return "the payload is still being written to " + peer_name(r.peer_world);
    default:
      return "not yet started";
  }
}

void Engine::abandon(const RequestPtr& r, const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (r->done.load(std::memory_order_relaxed)) return;
  r->abandoned = true;
  if (r->kind == OpKind::kRecv) {
    if (r->stage == OpStage::kPosted) matcher(r->group->comm).remove_posted(r.get());
    // A large receive stays in active_recvs_ so that the rest of its payload is
    // recognised and discarded; payload_target() no longer hands out its buffer.
  } else if (r->peer_world != rank_) {
    Peer& p = peers_[r->peer_world];
    if (r->stage == OpStage::kAwaitingCts) rendezvous_sends_.erase(r->id);
    if (p.link && !p.link->failed()) {
      bool stream_dropped = p.link->abandon(r.get());
      if (r->stage == OpStage::kStreaming) {
        rendezvous_sends_.erase(r->id);
        if (stream_dropped) {
          FrameHeader cancel = make_header(FrameKind::kCancel);
          cancel.recv_id = r->remote_id;
          send_control(r->peer_world, cancel);
        }
      }
    }
  } else {
    // A large send to this process itself: withdraw it from the unexpected queue.
    matcher(r->group->comm).drop_unexpected_if([&](const UnexpectedMessage& m) {
      return m.self_send == r;
    });
  }
  fail(r, std::make_exception_ptr(TimeoutError(why)));
}

void Engine::progress_loop() {
  epoll_event events[kMaxEvents];
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      progress_cv_.wait(
          lock, [this] { return stopping_ || (async_outstanding_ > 0 && blocking_waiters_ == 0); });
      if (stopping_) return;
    }
    uint64_t activity = caller_activity_.load(std::memory_order_relaxed);
    std::this_thread::sleep_for(kProgressGrace);
    if (caller_activity_.load(std::memory_order_relaxed) != activity) continue;
    // Sleep until some link is ready, without the lock, then service it with the lock.
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, kSleepSliceMs);
    if (n > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      poll_links();
    }
  }
}

void Engine::shutdown(std::chrono::milliseconds drain) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  progress_cv_.notify_all();
  if (progress_thread_.joinable()) progress_thread_.join();

  std::lock_guard<std::mutex> lock(mutex_);
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
  Deadline deadline = Deadline::after(drain);
  for (int r = 0; r < world_size(); ++r) {
    Peer& p = peers_[r];
    if (!p.link || p.link->failed()) continue;
    try {
      p.link->send(make_header(FrameKind::kGoodbye), nullptr, nullptr);
    } catch (const Error&) {
    }
  }
  for (auto& p : peers_) {
    if (p.link && !p.link->failed()) p.link->drain_and_close(deadline.poll_ms());
  }
}

}  // namespace weft::core

// Engine, set-up and posting: links, the pending list, isend/irecv and messages to self.
#include "p2p/engine.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>

#include "base/block_pool.h"
#include "base/log.h"
#include "p2p/protocol.h"
#include "weft/error.h"

namespace weft::p2p {
namespace {

// Spare unexpected messages kept for reuse (new_message): enough for the messages a
// few senders have in flight at once; each keeps at most an eager limit of payload.
constexpr size_t kSpareMessages = 64;

}  // namespace

using p2p::OpKind;
using p2p::OpStage;
using p2p::RequestState;
using transport::FrameHeader;

Engine::Engine(int world_rank, std::vector<PeerInfo> peers, EngineOptions options)
    : rank_(world_rank), options_(options), peers_(peers.size()) {
  for (size_t r = 0; r < peers.size(); ++r) {
    peers_[r].info = std::move(peers[r]);
    peers_[r].eager_credit = options_.eager_window;
  }
  spare_messages_.reserve(kSpareMessages);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw Error(ErrorCode::kInternal, std::string("epoll_create1: ") + std::strerror(errno));
  waiter_bell_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // no peer: the waiter bell
  if (waiter_bell_ < 0 || epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, waiter_bell_, &ev) != 0) {
    throw Error(ErrorCode::kInternal, std::string("eventfd: ") + std::strerror(errno));
  }
}

Engine::~Engine() {
  shutdown(std::chrono::milliseconds(0));
  // The receives that failed while queued, kept alive for the matcher (complete()).
  for (auto& c : comms_) {
    if (!c) continue;
    for (RequestState* r : c->matcher.take_posted_if([](const RequestState&) { return true; })) {
      r->self.reset();
    }
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (waiter_bell_ >= 0) ::close(waiter_bell_);
}

void Engine::add_link(std::unique_ptr<transport::Link> link) {
  Peer& p = peers_.at(link->peer());
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &p;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, link->poll_fd(), &ev) != 0) {
    throw Error(ErrorCode::kInternal, std::string("epoll_ctl: ") + std::strerror(errno));
  }
  p.shm = dynamic_cast<transport::shm::ShmLink*>(link.get());
  if (link->busy_polled()) {
    busy_links_.push_back(&p);
  } else {
    has_fd_links_ = true;
  }
  p.link = std::move(link);
}

void Engine::start() {
  progress_thread_ = std::thread([this] { progress_loop(); });
}

void Engine::connect_lazily(std::unique_ptr<transport::tcp::LazyConnections> connections,
                            LinkMaker make_link, Timeout connect_timeout) {
  lazy_ = std::move(connections);
  make_link_ = std::move(make_link);
  connect_timeout_ = connect_timeout;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &lazy_bell_tag_;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, lazy_->bell(), &ev) != 0) {
    throw Error(ErrorCode::kInternal, std::string("epoll_ctl: ") + std::strerror(errno));
  }
}

void Engine::add_lazy_link(int peer, base::Fd socket, const char* how) {
  std::unique_ptr<transport::Link> link = make_link_(peer, std::move(socket));
  WEFT_LOG(INFO) << "rank " << rank_ << " -> " << peer_name(peer) << ": " << link->describe()
                 << " (made on first use" << how << ")";
  add_link(std::move(link));
}

void Engine::adopt_dialed() {
  for (auto& [peer, socket] : lazy_->take_dialed()) {
    if (peers_[peer].link) continue;  // cannot happen: one connection per pair
    add_lazy_link(peer, std::move(socket), ", by its dial");
  }
}

bool Engine::link_on_first_use(int world_peer) {
  Peer& p = peers_[world_peer];
  if (!lazy_ || world_peer == rank_ || p.failure) return false;
  adopt_dialed();  // its own dial may be waiting
  if (p.link) return true;
  try {
    add_lazy_link(world_peer, lazy_->connect(world_peer, base::Deadline::after(connect_timeout_)),
                  "");
  } catch (const Error& e) {
    adopt_dialed();  // what connect() saw arrive meanwhile
    if (p.link) return true;
    // A peer that left could not send its goodbye over a link that did not exist: its
    // post says it left, and after whose failure.
    if (std::optional<int> cause = lazy_->departed(world_peer)) {
      p.left = true;
      p.left_after = *cause >= 0 && *cause < world_size() && *cause != world_peer ? *cause : -1;
    }
    on_link_failed(world_peer, base::Failure(ErrorCode::kPeer, e.what(), world_peer));
    return false;
  }
  return true;
}

PeerError Engine::peer_error(int world_peer, const std::string& context) const {
  const base::Failure& failure = peers_[world_peer].failure;
  return PeerError(failure.peer() >= 0 ? failure.peer() : world_peer,
                   context.empty() ? failure.why() : context + ": " + failure.why());
}

std::string Engine::peer_name(int world_rank) const {
  const PeerInfo& info = peers_.at(world_rank).info;
  return "rank " + std::to_string(world_rank) + " (" + info.hostname + ":" +
         std::to_string(info.pid) + ")";
}

// ---------------------------------------------------------------------------------------
// Posting operations

Engine::RequestPtr Engine::make_request(OpKind kind, GroupPtr group, const Tensor& tensor, int peer,
                                        int tag) {
  int peer_world = peer < 0 ? -1 : group->world_ranks[peer];
  // From the request pool: the request and its reference count in one reused block.
  auto r = std::allocate_shared<RequestState>(base::PoolAllocator<RequestState>(), kind, this,
                                              std::move(group), tensor, peer_world, peer, tag);
  link_pending(r);
  return r;
}

std::vector<Engine::RequestPtr> Engine::pending_requests() const {
  std::vector<RequestPtr> out;
  for (RequestState* r = pending_head_; r != nullptr; r = r->pending_next) out.push_back(r->self);
  return out;
}

std::shared_ptr<UnexpectedMessage> Engine::new_message() {
  if (spare_messages_.empty()) return std::make_shared<UnexpectedMessage>();
  std::shared_ptr<UnexpectedMessage> message = std::move(spare_messages_.back());
  spare_messages_.pop_back();
  return message;
}

void Engine::recycle(std::shared_ptr<UnexpectedMessage>& message) {
  // A message still referred to (a payload arriving into it, a matched probe's handle)
  // is not ours to reuse; one whose payload grew past the eager limit (a large message
  // to self) is not worth keeping.
  if (message.use_count() != 1 || spare_messages_.size() >= kSpareMessages ||
      message->payload.capacity() > options_.eager_limit) {
    message.reset();
    return;
  }
  UnexpectedMessage& m = *message;
  m.header = FrameHeader{};
  m.world_peer = -1;
  m.payload.clear();  // keeps its memory
  m.payload_complete = false;
  m.arrival = 0;
  m.self_send.reset();
  m.claimed = false;
  m.claimed_by.reset();
  spare_messages_.push_back(std::move(message));
}

Engine::Comm& Engine::create_comm(uint32_t id) {
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
  // The engine's own reference, taken over instead of copied (unlinking would drop it):
  // two atomic reference-count updates fewer per message. `request` may be that very
  // reference, so only `keep` is used from here on.
  RequestPtr keep = request->self ? std::move(request->self) : request;
  keep->stage = OpStage::kDone;
  keep->error = error;
  unlink_pending(*keep);
  if (keep->user_async) add_outstanding(-1);
  WEFT_LOG(TRACE) << "completed " << keep->describe() << ", " << keep->bytes << " B"
                  << (error ? " (failed)" : "");
  // Failed while still queued for matching (shutdown fails requests where they stand;
  // the other failures withdraw a receive first): it stays there to take the message
  // meant for it, and the queue's plain pointer needs it alive until then (take_posted)
  // or until the engine goes.
  if (keep->in_posted_queue) [[unlikely]]
    keep->self = keep;
  keep->done.store(true, std::memory_order_release);
  // Blocked waiters look again (sleep_as_waiter).
  ++completions_;
  if (followers_ > 0) followers_cv_.notify_all();
  if (waiter_in_epoll_ && !bell_rung_) {
    uint64_t one = 1;
    bell_rung_ = ::write(waiter_bell_, &one, sizeof one) == static_cast<ssize_t>(sizeof one);
  }
}

Engine::RequestPtr Engine::post(OpKind kind, GroupPtr group, const Tensor& tensor, int peer,
                                int tag, bool user_async, bool synchronous, uint64_t stamp,
                                const DeviceBuffer* device) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  note_caller_activity();
  RequestPtr r = make_request(kind, std::move(group), tensor, peer, tag);
  r->synchronous = synchronous;
  r->stamp = stamp;
  if (device != nullptr) [[unlikely]] {
    // Before it is posted: its RTS or CTS may be answered at once.
    if (kind == OpKind::kSend) {
      r->device = device->device;
    } else {
      r->target_device = device->device;
      r->device_target = device->target;
    }
  }
  if (stamp != 0) note_call(*r->group, tag, stamp);
  if (closed()) {
    fail(r, refusal(r->describe()));
  } else if (stamp != 0 && comm(r->group->comm).desync) [[unlikely]] {
    fail(r, comm(r->group->comm).desync.as_exception(r->describe()));
  } else if (kind == OpKind::kSend) {
    post_send(r);
  } else {
    post_recv(r);
  }
  if (user_async) count_if_outstanding(r);
  return r;
}

void Engine::post_send(const RequestPtr& r) {
  const Tensor& tensor = r->tensor;
  r->bytes = tensor.bytes();
  if (r->peer_world == rank_) {
    send_to_self(r);
    return;
  }
  Peer& p = peers_[r->peer_world];
  ensure_link(r->peer_world);
  if (p.link && p.link->failed()) p.link->progress();  // reports a failure not yet seen
  if (p.failure || !p.link) {
    fail(r, std::make_exception_ptr(peer_error(r->peer_world, r->describe())));
    return;
  }
  if (!r->synchronous && eager_fits(p, r->bytes)) {
    FrameHeader h = eager_header(p, *r->group, tensor, r->tag, r->peer_world, r->stamp);
    r->stage = OpStage::kEagerQueued;
    if (p.link->send(h, tensor.data(), r.get())) complete(r);
  } else {
    FrameHeader h = message_header(*r->group, tensor, r->tag, r->peer_world, r->stamp);
    r->id = next_id_++;
    h.kind = static_cast<uint8_t>(FrameKind::kRts);
    h.send_id = r->id;
    r->stage = OpStage::kAwaitingCts;
    rendezvous_sends_.emplace(r->id, r);
    trace_frame(true, r->peer_world, h);
    p.link->send(h, nullptr, nullptr);
  }
  after_send(p);
}

FrameHeader Engine::message_header(const p2p::GroupState& group, const Tensor& tensor, int tag,
                                   int world_peer, uint64_t stamp) {
  FrameHeader h;
  h.recv_id = stamp;
  h.dtype = static_cast<uint8_t>(tensor.dtype());
  h.comm = group.comm;
  h.tag = tag;
  h.src = group.rank;
  h.seq = comm(group.comm).send_seq[world_peer]++;
  h.msg_bytes = tensor.bytes();
  return h;
}

bool Engine::send_eagerly_now(const p2p::GroupState& group, const Tensor& tensor, int dst, int tag,
                              uint64_t stamp) {
  std::lock_guard<base::FutexMutex> lock(mutex_);
  int world_peer = group.world_ranks[dst];
  if (shut_down_ || aborted_ || world_peer == rank_) return false;
  if (stamp != 0) {
    note_call(group, tag, stamp);
    if (comm(group.comm).desync) [[unlikely]]
      return false;  // isend fails it
  }
  Peer& p = peers_[world_peer];
  if (!ensure_link(world_peer) || p.failure || p.link->failed()) return false;
  if (!eager_fits(p, tensor.bytes())) return false;
  note_caller_activity();
  if (p.shm != nullptr && tensor.bytes() <= transport::shm::ShmLink::kCompactPayload &&
      send_compact_now(p, group, tensor, tag, world_peer, stamp)) {
    return true;
  }
  FrameHeader h = eager_header(p, group, tensor, tag, world_peer, stamp);
  p.link->send(h, tensor.data(), nullptr);
  after_send(p);
  if (p.failure) {
    throw peer_error(world_peer, p2p::describe_op(OpKind::kSend, group, dst, tag));
  }
  return true;
}

bool Engine::eager_fits(const Peer& p, uint64_t bytes) const {
  return bytes <= options_.eager_limit && bytes + kEagerOverheadBytes <= p.eager_credit;
}

FrameHeader Engine::eager_header(Peer& p, const p2p::GroupState& group, const Tensor& tensor,
                                 int tag, int world_peer, uint64_t stamp) {
  FrameHeader h = message_header(group, tensor, tag, world_peer, stamp);
  h.kind = static_cast<uint8_t>(FrameKind::kEager);
  h.payload_bytes = h.msg_bytes;
  p.eager_credit -= h.msg_bytes + kEagerOverheadBytes;
  trace_frame(true, world_peer, h);
  return h;
}

bool Engine::send_compact_now(Peer& p, const p2p::GroupState& group, const Tensor& tensor, int tag,
                              int world_peer, uint64_t stamp) {
  uint64_t& seq = comm(group.comm).send_seq[world_peer];
  transport::shm::ShmLink::CompactRecord c;
  c.kind = static_cast<uint8_t>(FrameKind::kEager);
  c.dtype = static_cast<uint8_t>(tensor.dtype());
  c.comm = group.comm;
  c.tag = tag;
  c.src = group.rank;
  c.seq = seq;
  c.recv_id = stamp;
  c.payload_bytes = static_cast<uint32_t>(tensor.bytes());
  if (!p.shm->send_compact(c, tensor.data())) return false;
  ++seq;
  p.eager_credit -= tensor.bytes() + kEagerOverheadBytes;
  if (base::log::enabled(base::log::Level::kTrace)) [[unlikely]]
    log_frame(true, world_peer, transport::shm::ShmLink::expand(c));
  // No after_send(): the link has not failed (send_compact would have refused), and a
  // shared-memory link never waits for its socket to take output.
  return true;
}

void Engine::post_recv(const RequestPtr& r) {
  const int src = r->peer, tag = r->tag;
  // A message that arrived before its sender failed is still delivered.
  if (auto message = matcher(r->group->comm).take_unexpected(src, tag)) {
    deliver_unexpected(r, message);
    recycle(message);
    return;
  }
  if (r->peer_world >= 0 && r->peer_world != rank_) {
    // A receive from a peer not yet connected connects to it (lazy connections), so
    // that a peer that has died fails it at once, as with every link made at init.
    ensure_link(r->peer_world);
    if (peers_[r->peer_world].failure) {
      fail(r, std::make_exception_ptr(peer_error(r->peer_world, r->describe())));
      return;
    }
  }
  matcher(r->group->comm).add_posted(r.get());
}

void Engine::send_to_self(const RequestPtr& send) {
  const p2p::GroupState& g = *send->group;
  FrameHeader h;
  h.dtype = static_cast<uint8_t>(send->tensor.dtype());
  h.comm = g.comm;
  h.tag = send->tag;
  h.src = g.rank;
  h.msg_bytes = send->bytes;
  h.recv_id = send->stamp;
  if (RequestPtr recv = take_posted(matcher(g.comm), g.rank, send->tag)) {
    base::Failure refusal = misfit(*recv, h, rank_);
    if (refusal) {
      refuse(recv, refusal, h, rank_);
    } else {
      take_message_fields(*recv, h);
      if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), send->tensor.data(), h.msg_bytes);
      complete(recv);
    }
    complete(send);
    return;
  }
  auto message = new_message();
  message->world_peer = rank_;
  if (!send->synchronous && send->bytes <= options_.eager_limit) {
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

void Engine::send_control(int world_peer, const FrameHeader& header) {
  Peer& p = peers_[world_peer];
  if (p.failure || !p.link || p.link->failed()) return;
  trace_frame(true, world_peer, header);
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
  if (!p.link || p.failure) return;
  bool want = p.link->wants_write();
  if (want == p.watching_output) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (want ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.ptr = &p;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, p.link->poll_fd(), &ev);
  p.watching_output = want;
}

}  // namespace weft::p2p

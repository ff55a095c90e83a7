// Engine: point-to-point messaging over one link per peer. It owns the links, the
// matching queues of every group, and the rendezvous and credit bookkeeping of
// p2p/protocol.h, and it makes progress.
//
// Progress: a thread that waits on a request polls the links itself (spinning briefly,
// then sleeping in epoll), so the critical path never hands off to another thread. A
// progress thread keeps asynchronous requests moving while the caller computes: it
// sleeps while no asynchronous request is outstanding, while some thread is waiting,
// and while the caller's own calls keep the links moving (it steps in only after
// kProgressGrace without one, a grace that grows while the caller stays busy), so
// that it never competes with the caller for a core.
//
// A failed peer fails every pending operation that involves it with a PeerError
// naming it, and every later one at once. Nothing here blocks forever: waits take a
// deadline.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/deadline.h"
#include "base/failure.h"
#include "base/futex_mutex.h"
#include "base/log.h"
#include "p2p/matcher.h"
#include "p2p/protocol.h"
#include "p2p/request_state.h"
#include "transport/link.h"
#include "transport/shm/shm_link.h"
#include "transport/tcp/lazy_connections.h"
#include "weft/p2p.h"

struct epoll_event;

namespace weft::p2p {

struct PeerInfo {
  std::string hostname;
  int64_t pid = 0;
};

struct EngineOptions {
  uint64_t eager_limit = 64 << 10;     // largest eager message
  uint64_t eager_window = 4 << 20;     // eager credit per receiver
  std::chrono::microseconds spin{50};  // busy-polling before sleeping
  bool oversubscribed = false;         // more local ranks than cores: yield while spinning
  // When this process's blocked threads, times the ranks on this host, outnumber its
  // cores (threads of an MPI_THREAD_MULTIPLE program), each spins this long and
  // yields, as oversubscribed ranks do: long spins would starve the thread that is to
  // send the awaited message.
  int local_ranks = 1;
  int cores = 1;
  std::chrono::microseconds crowded_spin{5};
  // Describes a collective's call stamp for DesyncError messages ("all_reduce (op
  // max, float32, 16 elements)"); null: the stamp's number.
  std::string (*describe_call)(uint64_t stamp) = nullptr;
};

class Engine final : public transport::LinkHandler {
 public:
  using RequestPtr = std::shared_ptr<p2p::RequestState>;
  using GroupPtr = std::shared_ptr<const p2p::GroupState>;

  // `peers[r]` describes world rank r (this process included).
  Engine(int world_rank, std::vector<PeerInfo> peers, EngineOptions options);
  ~Engine() override;

  // Set-up: one link per peer, then start().
  void add_link(std::unique_ptr<transport::Link> link);
  void start();
  // Or, for peers not connected at init (WEFT_CONNECT=lazy): their links are made on
  // first use through `connections`, and `make_link` turns a connection into the
  // peer's link (shared memory or TCP). Called before start(). A peer that cannot be
  // connected to by `connect_timeout` fails as a crashed one does, named.
  using LinkMaker = std::function<std::unique_ptr<transport::Link>(int peer, base::Fd socket)>;
  void connect_lazily(std::unique_ptr<transport::tcp::LazyConnections> connections,
                      LinkMaker make_link, Timeout connect_timeout);

  // Arguments are already validated: ranks are group ranks inside the group.
  // `user_async` marks requests the caller holds while it computes (isend/irecv).
  // `stamp`: a collective's call stamp (p2p/protocol.h), 0 for point-to-point; the
  // collectives of a group found in disagreement fail at once with its DesyncError.
  RequestPtr isend(GroupPtr group, const Tensor& tensor, int dst, int tag, bool user_async,
                   bool synchronous = false, uint64_t stamp = 0) {
    return post(p2p::OpKind::kSend, std::move(group), tensor, dst, tag, user_async, synchronous,
                stamp);
  }
  RequestPtr irecv(GroupPtr group, const Tensor& tensor, int src, int tag, bool user_async,
                   uint64_t stamp = 0) {
    return post(p2p::OpKind::kRecv, std::move(group), tensor, src, tag, user_async, false, stamp);
  }

  // GPUDirect RDMA (p2p/engine_device.cc): whether a message of `bytes` to or from
  // `world_peer` moves device memory directly: above the eager limit (so it goes by
  // rendezvous, never copied by the CPU), over a link that takes device memory.
  bool moves_device_memory(int world_peer, uint64_t bytes);
  // isend of `tensor`, memory of CUDA device `device`, moved by RDMA.
  RequestPtr isend_device(GroupPtr group, const Tensor& tensor, int device, int dst, int tag,
                          bool user_async, bool synchronous);
  // irecv into the host buffer `staging`, or, once an RTS shows a message above the eager
  // limit, into `target` (device memory of `device`, as large) by RDMA (RequestState).
  RequestPtr irecv_device(GroupPtr group, const Tensor& staging, void* target, int device, int src,
                          int tag, bool user_async);

  // The fast path of a blocking send: when the message can go eagerly right now, sends
  // it (the link copies whatever the socket does not take at once) and returns true,
  // without creating a request. False: use isend. Throws PeerError if the link fails.
  bool send_eagerly_now(const p2p::GroupState& group, const Tensor& tensor, int dst, int tag,
                        uint64_t stamp = 0);

  // The blocking receive (p2p/engine_blocking_recv.cc): receives into `tensor` and
  // returns the sender's group rank, the message's tag and its size. A complete eager message
  // already waiting is copied out under one lock without any request; otherwise the request lives
  // in this call's frame, and whatever ends the call (completion, timeout, a failure) leaves no
  // engine structure pointing at it. Throws as a wait would; on a timeout (TimeoutError naming
  // `timeout`) the receive is withdrawn first, so weft never touches `tensor` after the call.
  RecvResult recv(const GroupPtr& group, const Tensor& tensor, int src, int tag, Timeout timeout);

  // Blocks until `request` completes; throws its error, or TimeoutError once `timeout`
  // has passed (the request stays pending).
  void wait(p2p::RequestState& request, Timeout timeout);
  // Blocks until at least one of `requests` has completed (successfully or not), or
  // throws TimeoutError once `timeout` has passed. Throws nothing for failed requests.
  void wait_any(std::span<p2p::RequestState* const> requests, Timeout timeout);
  // Progress without blocking, then whether `request` has completed.
  bool test(p2p::RequestState& request);

  // Probing (p2p/engine_probe.cc; probe's wait is with wait_any's): the message of
  // `group` that a receive from `src` with `tag` would take next, left queued for that
  // receive. iprobe makes progress without waiting and returns nullopt if none has
  // arrived; probe waits, and throws TimeoutError once `timeout` has passed. As a receive
  // would, both throw PeerError when `src` is dead and nothing of its is queued; a
  // waiting any-source probe fails with PeerError when a member of `group` crashes, as a
  // pending any-source receive does.
  std::optional<ProbeResult> iprobe(const p2p::GroupState& group, int src, int tag);
  ProbeResult probe(const p2p::GroupState& group, int src, int tag, Timeout timeout);
  // Matched probing (MPI_Improbe, MPI_Mprobe): as iprobe and probe, with the same
  // errors, but the message found is taken out of the unexpected queue, so that no
  // receive can match it any more; receive_claimed alone receives it. iclaim returns
  // null when no such message has arrived.
  std::shared_ptr<UnexpectedMessage> iclaim(const p2p::GroupState& group, int src, int tag);
  std::shared_ptr<UnexpectedMessage> claim(const p2p::GroupState& group, int src, int tag,
                                           Timeout timeout);
  // Receives a claimed message of `group` into `tensor`: the request completes (or fails,
  // for a buffer too small) as a receive that had matched the message would.
  RequestPtr receive_claimed(GroupPtr group, const Tensor& tensor,
                             const std::shared_ptr<UnexpectedMessage>& message);
  // Request::cancel: withdraws a receive still in the posted queue (no message matched
  // it) and completes it, without error, as cancelled. False for anything else.
  bool cancel_receive(p2p::RequestState& request);
  // A blocking call gave up on `request`: fail it with TimeoutError(`why`) and make sure
  // weft never touches its buffer again. `reason` is what a peer whose large message it
  // withdraws is told: a WithdrawReason, or the world rank whose failure was the cause.
  void abandon(const RequestPtr& request, const std::string& why,
               int reason = kWithdrawnAfterTimeout);

  // Progress without blocking (skipped while another thread polls), then PeerError if
  // the link to one of `world_peers` has failed, or Error(kState) once shutdown() has
  // begun: for waits that involve no request, such as the shared-memory collectives'.
  // A peer other than `awaited` that left in good order (destroy_process_group, with no
  // failure behind it) is not a failure: it may have done its part and gone, and if the
  // caller still needs it, the caller waits for it as `awaited` later.
  void throw_if_failed(std::span<const int> world_peers, int awaited);
  // Fails pending operations, says goodbye to every peer, flushes and closes links.
  void shutdown(std::chrono::milliseconds drain);
  // weft::abort (p2p/engine_failure.cc): from any thread, fails every pending operation
  // of this process and tells every peer, whose pending operations fail too, naming this
  // rank. Every later operation fails at once, on every rank, until destroy_process_group
  // (which still works). Links stay open, so that peers learn of the abort rather than of
  // a lost connection. Does nothing once the job is aborted or shut down.
  void abort(const std::string& reason);

  int world_rank() const { return rank_; }
  int world_size() const { return static_cast<int>(peers_.size()); }
  // "rank 3 (host:pid)"
  std::string peer_name(int world_rank) const;
  // "all_reduce (op max, float32, 1000 elements)" for a collective's call stamp.
  std::string describe_call(uint64_t stamp) const;
  // The one sentence of every DesyncError: "<one> called <its call> where <other> called
  // <its call>: the ranks disagree about this collective" (or, for equal stamps, that
  // they called it with different counts).
  std::string disagreement(const std::string& one, uint64_t one_stamp, const std::string& other,
                           uint64_t other_stamp) const;
  // A desync passed on: "<finder> found that <culprit> called ... where it called ...",
  // with this rank as "this rank" and a world rank out of range as "a rank".
  std::string found_disagreement(int finder, int culprit, uint64_t culprit_stamp,
                                 uint64_t finder_stamp) const;
  // The PeerError of an operation `context` that involves failed peer `world_peer`: its
  // culprit is the failure's, which for a peer that left after another failed is that
  // other one (the root cause), not the peer that left.
  PeerError peer_error(int world_peer, const std::string& context) const;
  // What a request is waiting for, for timeout messages.
  std::string pending_state(const p2p::RequestState& request);

  // An operation of this process failed because its deadline passed while it waited
  // for `world_peer` (the peer of a blocking send or receive, of a collective's
  // message, the member a shared-memory collective waited on). The first such peer
  // goes to the silence observer, once, without mutex_ held: a rank that times out is
  // usually about to fail, and the launcher needs to know whom it waited for to name
  // the rank that stopped responding (runtime/init posts it to the store). Called by
  // the operations, not by wait_any, whose short timeouts may be polls that the caller
  // repeats (MPI's wait loops, waits on mixed requests).
  void note_timed_out_waiting_for(int world_peer);
  // Set once, before the engine is shared between threads.
  void set_silence_observer(std::function<void(int world_peer)> observer) {
    silence_observer_ = std::move(observer);
  }

  // LinkHandler: called from link progress with mutex_ held.
  void on_frame(int peer, const transport::FrameHeader& header) override;
  std::byte* payload_target(int peer, const transport::FrameHeader& header,
                            uint64_t offset) override;
  int payload_device(int peer, const transport::FrameHeader& header) override;
  void on_payload_done(int peer, const transport::FrameHeader& header) override;
  // A whole eager message (the shared-memory ring's small frames) is matched and copied
  // in one step, without the per-frame state of the three calls above.
  void on_whole_frame(int peer, const transport::FrameHeader& header,
                      const std::byte* payload) override;
  void on_sent(int peer, void* cookie) override;
  void on_link_failed(int peer, const base::Failure& failure) override;

 private:
  // The link to `world_peer`, dialed now if connections are lazy and it has none yet;
  // false when there is none (a failure to connect marks the peer failed). Inline: every
  // send and named receive asks, and almost always the link is there.
  bool ensure_link(int world_peer) {
    return peers_[world_peer].link != nullptr || link_on_first_use(world_peer);
  }
  bool link_on_first_use(int world_peer);
  // Adopts the connections peers dialed (LazyConnections::take_dialed).
  void adopt_dialed();
  // Makes `socket` the link to `peer`, saying so; `how`: who dialed.
  void add_lazy_link(int peer, base::Fd socket, const char* how);
  // Checks an eager or RTS frame's group, source and place in its sender's sequence,
  // and counts it; false (a protocol error, the link failed) when one is wrong. A group
  // rank is below the world's size; the matcher keeps a queue per source.
  bool in_sequence(int peer, const transport::FrameHeader& h) {
    if (h.comm < kMaxComms && h.src >= 0 && h.src < world_size()) [[likely]] {
      uint64_t& expected = comm(h.comm).recv_seq[peer];
      if (h.seq == expected) [[likely]] {
        ++expected;
        return true;
      }
    }
    out_of_sequence(peer, h);
    return false;
  }
  void out_of_sequence(int peer, const transport::FrameHeader& h);
  // Where a receive's payload goes: its buffer, or its device buffer once an RTS has
  // switched it there (GPUDirect).
  static std::byte* recv_target(const p2p::RequestState& recv) {
    if (recv.device >= 0) [[unlikely]]
      return recv.device_target;
    return static_cast<std::byte*>(recv.tensor.data());
  }
  // Where the payload of the frame a peer is sending now goes.
  struct Incoming {
    enum class To { kNothing, kRecv, kUnexpected } to = To::kNothing;
    RequestPtr recv;
    std::shared_ptr<UnexpectedMessage> message;
    uint64_t base = 0;  // offset of the frame's payload in the receive buffer
  };
  struct Peer {
    std::unique_ptr<transport::Link> link;
    // `link` itself when it is shared memory: polled on every pass, it hands its frames
    // to the engine by direct calls rather than through LinkHandler.
    transport::shm::ShmLink* shm = nullptr;
    PeerInfo info;
    uint64_t eager_credit = 0;  // eager bytes we may still send it
    uint64_t credit_owed = 0;   // eager bytes of its we consumed and not yet reported
    bool left = false;          // it said goodbye
    // The peer whose failure it had seen when it said goodbye (the first to crash, or
    // the one whose abort it heard): the root cause of its leaving. -1: none.
    int left_after = -1;
    base::Failure failure;  // why its link is dead; none while alive
    bool watching_output = false;
    // crashes_ just after it crashed (failed without saying goodbye); 0 while it has not.
    uint64_t crash_number = 0;
    Incoming incoming;
  };

  // The header of a matchable message (kEager or kRts) to world rank `world_peer`;
  // takes the next sequence number of that pair.
  transport::FrameHeader message_header(const p2p::GroupState& group, const Tensor& tensor, int tag,
                                        int world_peer, uint64_t stamp);
  // Whether `bytes` may go to `p` eagerly now: small enough, and within its credit.
  bool eager_fits(const Peer& p, uint64_t bytes) const;
  // send_eagerly_now's path for a message that fits a shared-memory link's compact
  // record: written into the ring from its fields; false when the link cannot take it
  // now (nothing was sent or counted).
  bool send_compact_now(Peer& p, const p2p::GroupState& group, const Tensor& tensor, int tag,
                        int world_peer, uint64_t stamp);
  // The kEager header of a message to `world_peer`, its credit charged.
  transport::FrameHeader eager_header(Peer& p, const p2p::GroupState& group, const Tensor& tensor,
                                      int tag, int world_peer, uint64_t stamp);
  RequestPtr make_request(p2p::OpKind kind, GroupPtr group, const Tensor& tensor, int peer,
                          int tag);
  // Device memory a request moves by RDMA (RequestState::device, device_target).
  struct DeviceBuffer {
    int device = -1;
    std::byte* target = nullptr;  // a receive's
  };
  RequestPtr post(p2p::OpKind kind, GroupPtr group, const Tensor& tensor, int peer, int tag,
                  bool user_async, bool synchronous, uint64_t stamp,
                  const DeviceBuffer* device = nullptr);
  void post_send(const RequestPtr& send);
  void post_recv(const RequestPtr& recv);
  // Only a request still pending after it was posted needs the progress thread; counting
  // the many that complete at once (eager sends) would wake it for nothing, and a
  // wake-up is a system call on the caller's path. Inline, as the two below: each is a
  // few instructions on every message.
  void count_if_outstanding(const RequestPtr& r) {
    if (r->done.load(std::memory_order_relaxed)) return;
    r->user_async = true;
    if (add_outstanding(1) == 0 && blocking_waiters_ == 0) progress_cv_.notify_one();
  }
  void complete(const RequestPtr& request, std::exception_ptr error = nullptr);
  void fail(const RequestPtr& request, std::exception_ptr error) { complete(request, error); }

  void send_to_self(const RequestPtr& send);
  // Unexpected messages come from a list of spares, which keep their payload's memory:
  // a steady exchange of eager messages allocates nothing. recycle() returns one the
  // engine is done with (and that nothing else refers to) to the list.
  std::shared_ptr<UnexpectedMessage> new_message();
  void recycle(std::shared_ptr<UnexpectedMessage>& message);
  // A matchable frame (eager or RTS) that no posted receive took: queued in `m` as an
  // unexpected message, its payload left to the caller, and a collective's checked
  // against the call of its tag (check_early_message).
  std::shared_ptr<UnexpectedMessage> add_unexpected(Matcher& m, int peer,
                                                    const transport::FrameHeader& h);
  // The blocking receive's shortcut: `message`, just taken from the unexpected queue,
  // is a complete eager message that fits `tensor`: copies it there, returns its credit
  // and recycles it. False (changing nothing) for any other message.
  bool copy_out_eager(const Tensor& tensor, std::shared_ptr<UnexpectedMessage>& message);
  // Makes sure no engine structure refers to the receive `recv` any more: the posted
  // queue, the large receives in progress, a payload arriving for it. For receives that
  // ended without completing (abandoned, failed), whose later payload is discarded.
  void withdraw_receive(p2p::RequestState& recv);
  // The same for a send that ends without completing: a large one is withdrawn (the
  // receiver's CTS, or the stream under way, is answered with a kCancel giving
  // `reason`, a WithdrawReason or the failed world rank); a queued eager one still
  // goes out, from the link's own copy (Link::abandon).
  void withdraw_send(const RequestPtr& send, int reason);
  void deliver_unexpected(const RequestPtr& recv,
                          const std::shared_ptr<UnexpectedMessage>& message);
  void accept_rts(const RequestPtr& recv, const transport::FrameHeader& rts, int world_peer);
  // Why `recv` cannot take a message described by `header` (InvalidArgument); none if
  // it can.
  // Inline for the common answer (it fits); the reasons are built out of line.
  base::Failure misfit(const p2p::RequestState& recv, const transport::FrameHeader& header,
                       int world_peer) const {
    if (recv.stamp == header.recv_id && static_cast<DType>(header.dtype) == recv.tensor.dtype() &&
        header.msg_bytes <= recv.tensor.bytes()) [[likely]]
      return {};
    return why_misfit(recv, header, world_peer);
  }
  base::Failure why_misfit(const p2p::RequestState& recv, const transport::FrameHeader& header,
                           int world_peer) const;
  // Fails `recv` with `refusal`, misfit's answer to the message `header` from
  // `world_peer`; a desync is also recorded and told to the group's other members
  // (found_desync).
  void refuse(const RequestPtr& recv, const base::Failure& refusal,
              const transport::FrameHeader& header, int world_peer);

  // Desyncs (p2p/engine_desync.cc), all with mutex_ held. The collectives of group
  // `comm` disagree: records `why` (every later collective of the group fails at once
  // with it, as its rounds no longer line up) and fails the pending ones with it.
  // Nothing happens when the group's desync was recorded already.
  void desync(uint32_t comm, const base::Failure& why);
  // Records the desync `why` found here in the message `h` from `world_peer`, and tells
  // every other member of the group with kDesync.
  void found_desync(uint32_t comm, const base::Failure& why, const transport::FrameHeader& h,
                    int world_peer);
  // A collective's operation with `stamp` and `tag` is being posted in `group`: its call
  // goes to the group's call log, and a message of that call that arrived earlier with
  // another stamp (from a rank that is in another call) is a desync found.
  void note_call(const p2p::GroupState& group, int tag, uint64_t stamp);
  // A collective's message `h` from `world_peer` arrived before any receive took it:
  // it is checked against the call of its tag this rank is in, if any.
  void check_early_message(const transport::FrameHeader& h, int world_peer);
  // The DesyncError of a message `h` from `world_peer` whose stamp is not `stamp`.
  base::Failure stamp_mismatch(const transport::FrameHeader& h, int world_peer,
                               uint64_t stamp) const;
  // kDesync from `peer`.
  void on_desync_frame(int peer, const transport::FrameHeader& h);
  void take_message_fields(p2p::RequestState& recv, const transport::FrameHeader& header);
  void consume_credit(int world_peer, uint64_t bytes);
  void send_control(int world_peer, const transport::FrameHeader& header);
  void after_send(Peer& peer);
  void protocol_error(int world_peer, const std::string& what);
  // WEFT_DEBUG=TRACE: one line per frame sent or received.
  void trace_frame(bool outgoing, int world_peer, const transport::FrameHeader& header) const {
    if (base::log::enabled(base::log::Level::kTrace)) [[unlikely]]
      log_frame(outgoing, world_peer, header);
  }
  void log_frame(bool outgoing, int world_peer, const transport::FrameHeader& header) const;
  // Matching state of one group, found by its comm id.
  struct Comm {
    Matcher matcher;
    std::vector<uint64_t> send_seq, recv_seq;  // by world rank of the peer
    // Set once the group's collectives were found in disagreement.
    base::Failure desync;
    // The calls of the group's collectives this rank has begun, by tag modulo the
    // log's size: enough for the collectives one group can have in flight at once.
    struct Call {
      int tag = -1;
      uint64_t stamp = 0;
    };
    std::array<Call, 64> calls;
    std::vector<int> members;  // world ranks, told of a desync found here
  };
  Comm& comm(uint32_t id) {
    if (id < comms_.size() && comms_[id]) [[likely]]
      return *comms_[id];
    return create_comm(id);
  }
  Comm& create_comm(uint32_t id);
  Matcher& matcher(uint32_t id) { return comm(id).matcher; }
  // The posted receive of `m` a message from `src` with `tag` goes to, taken out of the
  // queue, with the engine's reference; null if none. One that failed while queued comes
  // too (done): the pointer returned is then the last, and the message goes with it.
  RequestPtr take_posted(Matcher& m, int src, int tag) {
    p2p::RequestState* r = m.take_posted(src, tag);
    if (r == nullptr) return nullptr;
    if (r->done.load(std::memory_order_relaxed)) return std::move(r->self);
    return r->self;
  }
  // The list of pending operations, which the engine keeps alive through `self`.
  void link_pending(const RequestPtr& r) {
    r->self = r;
    r->pending_next = pending_head_;
    if (pending_head_) pending_head_->pending_prev = r.get();
    pending_head_ = r.get();
  }
  void unlink_pending(p2p::RequestState& r) {
    if (r.pending_prev) r.pending_prev->pending_next = r.pending_next;
    if (r.pending_next) r.pending_next->pending_prev = r.pending_prev;
    if (pending_head_ == &r) pending_head_ = r.pending_next;
    r.pending_prev = r.pending_next = nullptr;
    r.self.reset();  // may free r if the engine held the last reference
  }
  std::vector<RequestPtr> pending_requests() const;

  // Progress, with mutex_ held: every busy-polled link, and then, when `check_fds`, every
  // link epoll reports ready.
  void poll_links(bool check_fds = true);
  void poll_busy_links();
  // Progress for a caller's thread waiting on a message to or from `world_peer` (-1:
  // any): that peer's link directly when it has one (one system call instead of
  // epoll's two), every link now and then.
  void poll_for_caller(int world_peer, unsigned iteration);
  // The blocking loop of wait_any and probe: with mutex_ held, `step(iteration)` polls
  // and says whether the wait is over; it spins, then sleeps in epoll, until then. At
  // the deadline `expire()`, also with mutex_ held, returns true if the wait ended
  // after all, or throws. While another thread holds mutex_ (it is polling, so it
  // makes the progress), a spinning waiter does not queue for the lock but asks
  // `done()`, without it, whether its wait is over: it watches its own flag.
  template <typename Step, typename Expire, typename Done>
  void poll_until(Timeout timeout, Step step, Expire expire, Done done);
  // With mutex_ held: what a probe by `op` finds now (nullopt: nothing yet), or the
  // error that it must fail with. An any-source probe fails when a member crashed after
  // crashes_ was `crashes_before`.
  std::optional<ProbeResult> probed(const char* op, const p2p::GroupState& group, int src, int tag,
                                    uint64_t crashes_before);
  // Before sleeping in epoll: false if some busy-polled link has work already. Every
  // call is followed by wake_busy_links().
  bool prepare_busy_links_to_sleep();
  void wake_busy_links();
  // Sleeps in epoll for at most `timeout_ms` (taking the lock only around the links'
  // preparation and wake-up) and returns what epoll_wait returned, or -1 at once when a
  // busy-polled link has work already.
  int sleep_in_epoll(epoll_event* events, int max_events, int timeout_ms);
  // A blocked waiter's sleep, at most `timeout_ms`, once its spin is over; with mutex_
  // held by `lock`. One waiter at a time sleeps in epoll, and complete() rings
  // waiter_bell_ to wake it; the others wait on followers_cv_, which complete() and the
  // epoll sleeper's return notify. Returns at once if a request completed since the
  // caller read completions_ as `seen_completions`. True: a link may have work.
  bool sleep_as_waiter(std::unique_lock<base::FutexMutex>& lock, int timeout_ms,
                       uint64_t seen_completions);
  void progress_loop();
  void watch_output(Peer& peer);

  const int rank_;
  const EngineOptions options_;
  std::vector<Peer> peers_;
  std::vector<Peer*> busy_links_;             // peers whose link is busy-polled (shared memory)
  bool has_fd_links_ = false;                 // some peer's link reports data through epoll
  std::vector<std::unique_ptr<Comm>> comms_;  // by comm id; created on first use
  std::unordered_map<uint64_t, RequestPtr> rendezvous_sends_;  // send_id -> send
  std::unordered_map<uint64_t, RequestPtr> active_recvs_;      // recv_id -> large recv
  // Large sends withdrawn before their CTS came, and why: the CTS is answered with a
  // kCancel carrying the reason.
  std::unordered_map<uint64_t, int> withdrawn_sends_;  // send_id -> reason
  p2p::RequestState* pending_head_ = nullptr;
  uint64_t next_id_ = 1;
  uint64_t crashes_ = 0;       // peers that crashed so far, for waiting any-source probes
  unsigned iprobe_polls_ = 0;  // iprobe's poll count, so that a loop of them epolls too
  unsigned test_polls_ = 0;    // the same for test()
  std::vector<std::shared_ptr<UnexpectedMessage>> spare_messages_;  // see new_message()

  std::function<void(int)> silence_observer_;
  std::atomic<bool> silence_reported_{false};

  // Taken by every post and every poll, so a mutex whose uncontended pair costs two
  // atomic instructions (base/futex_mutex.h); condition_variable_any waits on it.
  base::FutexMutex mutex_;
  std::condition_variable_any progress_cv_;
  std::atomic<int> async_outstanding_{0};  // changed with the lock, read without
  // Adds `n` to async_outstanding_ with the lock held, returning the count before: a
  // plain load and store, since no other thread changes it meanwhile (a locked
  // read-modify-write would cost two per request).
  int add_outstanding(int n) {
    const int before = async_outstanding_.load(std::memory_order_relaxed);
    async_outstanding_.store(before + n, std::memory_order_relaxed);
    return before;
  }
  std::atomic<int> blocking_waiters_{0};  // changed without the lock on the fast path
  bool stopping_ = false;
  // Counts callers' polls and posts; the progress thread stays out of the way while it
  // keeps changing (cheaper than reading the clock on every call).
  std::atomic<uint64_t> caller_activity_{0};
  // With mutex_ held, so a plain store suffices (no locked read-modify-write).
  void note_caller_activity() {
    caller_activity_.store(caller_activity_.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
  }
  bool shut_down_ = false;
  base::Failure aborted_;  // set once, by abort() or a peer's kAbort
  // Whether no operation may start: the process group was destroyed or the job aborted.
  // Checked first, so that the steady state builds no description. With mutex_ held.
  bool closed() const { return shut_down_ || aborted_.failed(); }
  // The error of an operation `what` that may not start, when closed().
  std::exception_ptr refusal(const std::string& what) const;
  // The world rank whose failure this process has seen first (a crash, the abort it
  // heard, or the cause a leaving peer passed on); -1 when none. With mutex_ held.
  int root_cause() const;
  // Queues `header` (a control frame) on every live link. With mutex_ held.
  void send_to_every_peer(const transport::FrameHeader& header);
  // Records the abort and fails every pending request with it. With mutex_ held.
  void abort_locked(base::Failure why);
  int epoll_fd_ = -1;
  // Waking blocked waiters (sleep_as_waiter). A waiter asleep in epoll is not woken by
  // its link when another thread's progress has taken the message for it, so
  // complete() rings this eventfd (in the epoll set) while a waiter sleeps there.
  // All with mutex_ held.
  int waiter_bell_ = -1;
  bool bell_rung_ = false;
  bool waiter_in_epoll_ = false;
  int followers_ = 0;
  std::condition_variable_any followers_cv_;
  uint64_t completions_ = 0;
  std::thread progress_thread_;

  // Lazy connections (connect_lazily); null when every link was made at init. Declared
  // last, so that its accept thread stops before anything it could hand over goes.
  std::unique_ptr<transport::tcp::LazyConnections> lazy_;
  LinkMaker make_link_;
  Timeout connect_timeout_{0};
  char lazy_bell_tag_ = 0;  // its address marks the lazy bell's epoll events
};

}  // namespace weft::p2p

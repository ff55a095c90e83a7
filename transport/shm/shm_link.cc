#include "transport/shm/shm_link.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "base/deadline.h"
#include "base/log.h"
#include "transport/shm/cma.h"
#include "weft/error.h"

namespace weft::transport::shm {
namespace {

using transport::FrameHeader;

// How long abandon() waits for a peer that is reading a withdrawn message right now.
constexpr auto kWithdrawWait = std::chrono::seconds(30);

bool process_alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

ShmLink::ShmLink(int peer, base::Fd socket, transport::LinkHandler& handler,
                 std::shared_ptr<Segment> inbox, RingView inbound,
                 std::shared_ptr<Segment> peer_inbox, RingView outbound, ShmLinkOptions options)
    : peer_(peer),
      socket_(std::move(socket)),
      handler_(handler),
      inbox_(std::move(inbox)),
      peer_inbox_(std::move(peer_inbox)),
      in_(inbound),
      out_(outbound),
      options_(std::move(options)) {
  base::set_nonblocking(socket_.get(), true);
  base::set_nodelay(socket_.get());
  options_.stream_chunk = std::min(options_.stream_chunk, out_.capacity / 4);
}

ShmLink::~ShmLink() = default;

std::string ShmLink::describe() const {
  std::string how = options_.single_copy
                        ? "single-copy (process_vm_readv) from " +
                              std::to_string(options_.single_copy_min_bytes) + " B"
                        : "copied through the ring (" + options_.no_single_copy_reason + ")";
  return "shm " + std::to_string(out_.capacity >> 10) + " KiB rings, large messages " + how;
}

// ---------------------------------------------------------------------------------------
// Producer side

bool ShmLink::reserve(uint64_t bytes) {
  if (out_.capacity - (out_head_ - out_tail_seen_) >= bytes) return true;
  // Records a burst holds back take space the peer cannot free before it sees them.
  if (unpublished_ || held_stamp_ != 0) publish_now();
  out_tail_seen_ = out_.control->tail.load(std::memory_order_acquire);
  return out_.capacity - (out_head_ - out_tail_seen_) >= bytes;
}

void ShmLink::put(uint64_t position, const void* from, uint64_t bytes) {
  uint64_t at = position & (out_.capacity - 1);
  uint64_t first = std::min(bytes, out_.capacity - at);
  std::memcpy(out_.records + at, from, first);
  if (first < bytes)
    std::memcpy(out_.records, static_cast<const std::byte*>(from) + first, bytes - first);
}

ShmLink::CompactRecord ShmLink::compact(const FrameHeader& h) {
  CompactRecord c;
  c.kind = h.kind;
  c.dtype = h.dtype;
  c.comm = h.comm;
  c.tag = h.tag;
  c.src = h.src;
  c.seq = h.seq;
  c.recv_id = h.recv_id;
  c.payload_bytes = static_cast<uint32_t>(h.payload_bytes);
  return c;
}

FrameHeader ShmLink::expand(const CompactRecord& c) {
  FrameHeader h;
  h.kind = c.kind;
  h.dtype = c.dtype;
  h.comm = c.comm;
  h.tag = c.tag;
  h.src = c.src;
  h.seq = c.seq;
  h.recv_id = c.recv_id;
  h.msg_bytes = h.payload_bytes = c.payload_bytes;
  return h;
}

template <typename Head>
void ShmLink::commit(const Head& head, uint64_t bytes) {
  // The consumer polls the first word of the record at its tail: zero means "not yet".
  // Clearing the next record's first word before this record becomes visible keeps that
  // true however often the ring has wrapped.
  std::byte* next = out_.records + ((out_head_ + bytes) & (out_.capacity - 1));
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(next)).store(0, std::memory_order_relaxed);
  std::byte* at = out_.records + (out_head_ & (out_.capacity - 1));
  std::memcpy(at + sizeof(uint64_t), reinterpret_cast<const std::byte*>(&head) + sizeof(uint64_t),
              sizeof head - sizeof(uint64_t));
  uint64_t stamp;
  std::memcpy(&stamp, &head, sizeof stamp);  // magic is non-zero, so the stamp is too
  if (burst_depth_ > 0 && held_stamp_ == 0) {
    // The burst's first record: while its first word stays zero the peer reads none of
    // the records behind it, so stamping it last publishes them all at once.
    held_stamp_ = stamp;
    held_position_ = out_head_;
  } else {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(at))
        .store(stamp, std::memory_order_release);
  }
  out_head_ += bytes;
}

bool ShmLink::push_compact(const CompactRecord& c, const void* payload) {
  // Its line, and the next one, whose stamp commit() clears.
  if (!reserve(2 * kLine)) return false;
  // In one line with the header, so never across the end of the ring.
  if (c.payload_bytes > 0)
    std::memcpy(out_.records + (out_head_ & (out_.capacity - 1)) + sizeof c, payload,
                c.payload_bytes);
  commit(c, kLine);
  return true;
}

bool ShmLink::send_compact(const CompactRecord& c, const void* payload) {
  if (failed() || !writes_now() || !push_compact(c, payload)) return false;
  publish();
  return true;
}

bool ShmLink::push_frame(const FrameHeader& header, const void* payload) {
  if (compact_fits(header)) return push_compact(compact(header), payload);
  uint64_t bytes = record_bytes(header);
  if (bytes + kLine > out_.capacity) {
    throw Error(ErrorCode::kInternal,
                "a " + std::to_string(header.payload_bytes) + "-byte frame does not fit the " +
                    std::to_string(out_.capacity) + "-byte shared-memory ring to rank " +
                    std::to_string(peer_));
  }
  // One line beyond the record too: commit() clears the stamp of the next record there.
  if (!reserve(bytes + kLine)) return false;
  if (header.payload_bytes > 0) put(out_head_ + sizeof header, payload, header.payload_bytes);
  commit(header, bytes);
  return true;
}

bool ShmLink::push_single_copy(const transport::SendQueue::Stream& s) {
  int slot = -1;
  for (int i = 0; i < kCmaSlots && slot < 0; ++i) {
    if (!slot_busy_[i]) slot = i;
  }
  if (slot < 0 || !reserve(2 * kLine)) return false;  // its line, and the next stamp's
  CmaSlot& c = out_.control->slots[slot];
  c.address = reinterpret_cast<uint64_t>(s.data);
  c.state.store(kSlotPosted, std::memory_order_release);
  slot_busy_[slot] = true;
  slot_cookie_[slot] = s.cookie;
  ++busy_slots_;

  FrameHeader h = s.header;
  h.magic = kSingleCopyMagic;
  h.offset = static_cast<uint64_t>(slot);  // a whole message: offset 0 is implied
  h.payload_bytes = s.bytes;
  commit(h, record_bytes(h));
  return true;
}

void ShmLink::publish() {
  if (burst_depth_ > 0) {
    unpublished_ = true;
    return;
  }
  publish_now();
}

void ShmLink::end_burst() {
  if (--burst_depth_ > 0) return;
  if (unpublished_ || held_stamp_ != 0) publish_now();
}

void ShmLink::publish_now() {
  unpublished_ = false;
  if (held_stamp_ != 0) {
    std::byte* at = out_.records + (held_position_ & (out_.capacity - 1));
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(at))
        .store(held_stamp_, std::memory_order_release);
    held_stamp_ = 0;
  }
  // Orders the records' stamps before the read of the peer's sleep flag, against
  // prepare_to_sleep's flag-then-stamp on the other side: one of the two sees the other.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (out_.control->consumer_asleep.load(std::memory_order_relaxed) &&
      out_.control->consumer_asleep.exchange(0, std::memory_order_relaxed)) {
    ring_doorbell();
  }
}

bool ShmLink::send(const FrameHeader& header, const void* payload, void* cookie) {
  refuse_if_failed();
  if (writes_now() && push_frame(header, payload)) {
    publish();
    return true;
  }
  queue_.push_frame(header, payload, cookie);
  flush();
  return false;
}

void ShmLink::send_stream(const FrameHeader& header, const void* data, uint64_t bytes,
                          void* cookie) {
  refuse_if_failed();
  bool single = options_.single_copy && bytes >= options_.single_copy_min_bytes && bytes > 0;
  queue_.push_stream(header, data, bytes, cookie, single);
  flush();
}

void ShmLink::flush() {
  if (in_flush_ || failed()) return;
  in_flush_ = true;
  begin_burst();  // whatever the ring takes now becomes visible at once
  std::vector<void*> sent;
  bool pushed = false;
  auto& control = queue_.control();
  while (!control.empty() && push_frame(control.front().header, control.front().payload)) {
    pushed = true;
    if (control.front().cookie != nullptr) sent.push_back(control.front().cookie);
    control.pop_front();
  }
  // Control frames go first; streams move only once none is waiting.
  while (control.empty() && queue_.first_stream() != nullptr) {
    transport::SendQueue::Stream& s = *queue_.first_stream();
    if (s.single_copy) {
      // Reported sent when the peer has read it (reap_slots).
      if (!push_single_copy(s)) break;
      pushed = true;
      queue_.pop_stream();
      continue;
    }
    FrameHeader h = s.header;
    h.offset = s.next_offset;
    h.payload_bytes = std::min(options_.stream_chunk, s.bytes - s.next_offset);
    if (!push_frame(h, s.data + s.next_offset)) break;
    pushed = true;
    s.next_offset += h.payload_bytes;
    if (s.next_offset == s.bytes) {
      if (s.cookie != nullptr) sent.push_back(s.cookie);
      queue_.pop_stream();
    }
  }
  if (pushed) publish();
  end_burst();
  in_flush_ = false;
  for (void* cookie : sent) handler_.on_sent(peer_, cookie);
}

void ShmLink::reap_slots() {
  for (int i = 0; i < kCmaSlots && busy_slots_ > 0; ++i) {
    if (!slot_busy_[i]) continue;
    CmaSlot& c = out_.control->slots[i];
    uint32_t state = c.state.load(std::memory_order_acquire);
    if (state != kSlotDone && state != kSlotFree) continue;  // Free: a withdrawal seen
    c.state.store(kSlotFree, std::memory_order_relaxed);
    slot_busy_[i] = false;
    --busy_slots_;
    void* cookie = slot_cookie_[i];
    slot_cookie_[i] = nullptr;
    if (state == kSlotDone && cookie != nullptr) handler_.on_sent(peer_, cookie);
  }
}

bool ShmLink::abandon(void* cookie) {
  bool dropped = queue_.abandon(cookie);
  for (int i = 0; i < kCmaSlots; ++i) {
    if (!slot_busy_[i] || slot_cookie_[i] != cookie) continue;
    slot_cookie_[i] = nullptr;
    CmaSlot& c = out_.control->slots[i];
    uint32_t expected = kSlotPosted;
    if (c.state.compare_exchange_strong(expected, kSlotWithdrawn, std::memory_order_acq_rel)) {
      dropped = true;
      continue;
    }
    // The peer is copying it right now; the caller may free the memory once we
    // return, so wait for the copy to end (or the peer to die).
    base::Deadline deadline = base::Deadline::after(kWithdrawWait);
    while (c.state.load(std::memory_order_acquire) == kSlotReading &&
           process_alive(options_.peer_pid) && !deadline.expired()) {
      sched_yield();
    }
  }
  return dropped;
}

// ---------------------------------------------------------------------------------------
// Consumer side

void ShmLink::release_consumed() {
  // As in publish_now(): the new tail before the read of the producer's waiting flag.
  in_.control->tail.exchange(in_tail_, std::memory_order_seq_cst);
  if (in_.control->producer_waiting.load(std::memory_order_seq_cst) &&
      in_.control->producer_waiting.exchange(0, std::memory_order_seq_cst)) {
    ring_doorbell();
  }
}

bool ShmLink::claim_slot(uint64_t slot) {
  CmaSlot& c = in_.control->slots[slot];
  uint32_t expected = kSlotPosted;
  if (c.state.compare_exchange_strong(expected, kSlotReading, std::memory_order_acq_rel)) {
    // A long copy follows: what the consumer sent from this batch so far (a
    // clear-to-send, say) must not wait for it.
    if (unpublished_ || held_stamp_ != 0) publish_now();
    return true;
  }
  c.state.store(kSlotFree, std::memory_order_release);  // withdrawn: free it
  return false;
}

bool ShmLink::read_slot(uint64_t slot, std::byte* target, uint64_t offset, uint64_t bytes) {
  CmaSlot& c = in_.control->slots[slot];
  base::Failure error = cma_read(options_.peer_pid, target, c.address + offset, bytes);
  if (!error) return true;
  c.state.store(kSlotDone, std::memory_order_release);
  fail("cannot read the message from its memory (process_vm_readv: " + error.why() + ")");
  return false;
}

void ShmLink::finish_slot(uint64_t slot) {
  in_.control->slots[slot].state.store(kSlotDone, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------
// Progress, sleeping and failure

void ShmLink::progress_output() {
  if (busy_slots_ > 0) reap_slots();
  if (!queue_.empty()) flush();
}

void ShmLink::service_fd() {
  read_socket();
  // Whatever the peer wrote before its socket closed is in the ring: deliver it (a
  // goodbye among it turns the failure into an orderly exit) before failing.
  progress();
  if (peer_closed_) fail(peer_closed_why_);
  report_failure(handler_);
}

void ShmLink::read_socket() {
  char sink[256];
  while (!peer_closed_ && !failed()) {
    ssize_t n = ::recv(socket_.get(), sink, sizeof sink, MSG_DONTWAIT);
    if (n > 0) continue;  // doorbells: their only meaning is "look at the rings"
    if (n == 0) {
      peer_closed_ = true;
      peer_closed_why_ = "connection closed by the peer";
    } else if (errno == ECONNRESET) {
      // The peer went away with doorbells of ours unread. Like a close, not like a
      // broken link: what it wrote before it went is in the ring, and is delivered
      // before the link fails.
      peer_closed_ = true;
      peer_closed_why_ = "connection reset by the peer";
    } else if (errno == EINTR) {
      continue;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
      fail(std::string("receive failed: ") + std::strerror(errno));
    }
    return;
  }
}

bool ShmLink::prepare_to_sleep() {
  if (failed()) return true;
  in_.control->consumer_asleep.exchange(1, std::memory_order_seq_cst);
  if (stamp_at_tail() != 0) return false;
  if (has_output()) {
    out_.control->producer_waiting.exchange(1, std::memory_order_seq_cst);
    if (out_.control->tail.load(std::memory_order_seq_cst) != out_tail_seen_) return false;
    for (int i = 0; i < kCmaSlots; ++i) {
      if (!slot_busy_[i]) continue;
      uint32_t state = out_.control->slots[i].state.load(std::memory_order_seq_cst);
      if (state == kSlotDone || state == kSlotFree) return false;
    }
  }
  return true;
}

void ShmLink::woke_up() {
  in_.control->consumer_asleep.store(0, std::memory_order_relaxed);
  out_.control->producer_waiting.store(0, std::memory_order_relaxed);
}

void ShmLink::ring_doorbell() {
  char bell = 1;
  // A full socket buffer already holds a doorbell the peer has yet to read.
  ::send(socket_.get(), &bell, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void ShmLink::drain_and_close(int timeout_ms) {
  base::Deadline deadline = base::Deadline::after(std::chrono::milliseconds(timeout_ms));
  while (!failed() && has_output() && !deadline.expired()) {
    progress();
    if (!has_output() || failed()) break;
    // The peer consumes on its own; the doorbell wakes it if it sleeps.
    out_.control->producer_waiting.store(1, std::memory_order_seq_cst);
    pollfd p{socket_.get(), POLLIN, 0};
    ::poll(&p, 1, 1);
    read_socket();
    if (peer_closed_) break;
  }
  if (has_output() && !failed()) {
    WEFT_LOG(WARN) << "closing the shared-memory link to rank " << peer_
                   << " with unsent data after " << timeout_ms << " ms";
  }
  close_quietly();
  base::close_gently(socket_);
}

}  // namespace weft::transport::shm

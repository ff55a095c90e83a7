// ShmLink: a Link to a peer on the same host through shared memory. Frames travel in
// single-producer single-consumer rings (transport/shm/inbox.h): the sender copies a
// frame into its ring in the peer's inbox, header last; the receiver, polling the first
// word of the record at its tail, copies it out. No system call on that path, and no
// shared index on it either: the receiver touches only the record's own cache lines.
//
// A small frame takes one line of the ring instead of two: when its header holds nothing
// beyond a compact record's fields (CompactRecord) and its payload fits the rest of the
// line, the two travel together, so an 8-byte message costs the receiver one cache line
// fetched from the sender's core instead of two (and the sender one line to own).
//
// Large streams go single-copy when the peer may read this process's memory: the
// sender publishes a descriptor (address, length) and the receiver process_vm_readv()s the
// payload straight into the receive buffer. Otherwise they are cut into chunks copied
// through the ring, pipelined by the ring itself.
//
// The pair's TCP connection stays open beside the rings, for two things shared memory
// cannot do: waking a peer that sleeps in epoll (a one-byte doorbell, sent only when the
// peer said it was going to sleep), and telling that the peer is gone (the kernel
// closes its socket when it exits, however it dies).
//
// Incoming frames go to a consumer with LinkHandler's three frame calls. progress()
// hands them to the handler through virtual calls; the engine, which busy-polls these
// links on every pass, calls progress(consumer) with itself instead, so each frame
// costs direct calls on its concrete type (the loop is a template, below the class).
// Either way the consumed space is released once per batch, not once per record.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/socket.h"
#include "transport/link.h"
#include "transport/send_queue.h"
#include "transport/shm/inbox.h"
#include "transport/shm/segment.h"

namespace weft::transport::shm {

struct ShmLinkOptions {
  pid_t peer_pid = 0;
  // The peer reads this process's large messages with process_vm_readv (probed).
  bool single_copy = false;
  uint64_t single_copy_min_bytes = 0;  // smaller streams go through the ring
  uint64_t stream_chunk = 64 << 10;    // payload per ring frame of a copied stream
  std::string no_single_copy_reason;   // for describe(), when single_copy is false
};

class ShmLink final : public transport::Link {
 public:
  // `inbound` is the ring the peer writes into, in `inbox` (this process's segment);
  // `outbound` the ring this process writes into, in `peer_inbox`. The link keeps both
  // segments mapped while it lives.
  ShmLink(int peer, base::Fd socket, transport::LinkHandler& handler,
          std::shared_ptr<Segment> inbox, RingView inbound, std::shared_ptr<Segment> peer_inbox,
          RingView outbound, ShmLinkOptions options);
  ~ShmLink() override;

  int peer() const override { return peer_; }
  std::string describe() const override;

  bool send(const transport::FrameHeader& header, const void* payload, void* cookie) override;

  // Marks a compact record (CompactRecord): a whole small message and its header in one
  // line. Also the transport's own; the consumer sees the full header it stands for.
  static constexpr uint16_t kCompactMagic = 0x5753;  // "WS"
  // A compact record's header: FrameHeader without the fields a compact frame leaves
  // implied (send_id and offset 0, msg_bytes equal to payload_bytes). Its payload
  // follows it in the same line. The first word (magic to comm) is the stamp, as in a
  // full header.
  struct CompactRecord {
    uint16_t magic = kCompactMagic;
    uint8_t kind = 0;
    uint8_t dtype = 0;
    uint32_t comm = 0;
    int32_t tag = 0;
    int32_t src = 0;
    uint64_t seq = 0;
    uint64_t recv_id = 0;
    uint32_t payload_bytes = 0;
    uint32_t unused = 0;
  };
  static_assert(sizeof(CompactRecord) == 40, "a compact record leaves 24 bytes of its line");
  static constexpr uint64_t kCompactPayload = kLine - sizeof(CompactRecord);
  static bool compact_fits(const transport::FrameHeader& h) {
    return h.magic == transport::kFrameMagic && h.payload_bytes <= kCompactPayload &&
           h.send_id == 0 && h.offset == 0 && h.msg_bytes == h.payload_bytes;
  }
  static CompactRecord compact(const transport::FrameHeader& h);
  static transport::FrameHeader expand(const CompactRecord& c);
  // A whole small message as one compact record, straight from its fields: the engine's
  // fast path for small sends, which skips building a full header. False, with nothing
  // sent, when it cannot go now (the link failed, frames wait in its queue, the ring
  // is full); the caller then takes the general path, send().
  bool send_compact(const CompactRecord& record, const void* payload);

  void send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                   void* cookie) override;
  bool abandon(void* cookie) override;
  void progress() override { progress(handler_); }
  // progress() with incoming frames delivered to `consumer` (anything with
  // LinkHandler's on_frame, payload_target and on_payload_done) by direct calls. Sends
  // reported done and the link's failure still go to the handler.
  template <typename Consumer>
  void progress(Consumer& consumer);

  // Frames sent between the two are written into the ring but become visible to the
  // peer together at end_burst(): one stamp, one fence, at most one doorbell. The link
  // holds one around each batch it delivers, so the answers a consumer sends while
  // it handles the batch (clear-to-sends, credits) go out as one publish.
  void begin_burst() override { ++burst_depth_; }
  void end_burst() override;

  bool busy_polled() const override { return true; }
  void service_fd() override;
  bool prepare_to_sleep() override;
  void woke_up() override;

  int poll_fd() const override { return socket_.get(); }
  bool wants_write() const override { return false; }  // space is announced by doorbell
  void drain_and_close(int timeout_ms) override;

 private:
  // Marks a ring record that describes a single-copy payload instead of carrying it; the
  // magic field belongs to the transport, and the consumer never sees this value.
  static constexpr uint16_t kSingleCopyMagic = 0x5743;  // "WC"
  // Payload of one process_vm_readv; the target is asked for again between pieces.
  static constexpr uint64_t kSingleCopyPiece = 64ull << 20;

  // A single-copy record is its header alone: the payload stays in the sender's memory.
  // A compact record is one line, its payload included.
  static uint64_t record_bytes(const transport::FrameHeader& h) {
    return h.magic == kSingleCopyMagic || h.magic == kCompactMagic
               ? kLine
               : sizeof(transport::FrameHeader) + ((h.payload_bytes + kLine - 1) & ~(kLine - 1));
  }

  // Producer side.
  bool reserve(uint64_t bytes);
  void put(uint64_t position, const void* from, uint64_t bytes);
  bool push_frame(const transport::FrameHeader& header, const void* payload);
  // push_frame for a compact record: false when the ring has no room for it now.
  bool push_compact(const CompactRecord& record, const void* payload);
  // Whether a frame may go into the ring now rather than behind those already queued
  // (and never from inside a flush, which is writing them).
  bool writes_now() const { return !queue_.has_control() && !in_flush_; }
  bool push_single_copy(const transport::SendQueue::Stream& stream);
  // Writes the record's header, `head_bytes` from `head` (its payload is in place
  // already), at out_head_, where the record takes `bytes` of the ring, and makes it
  // visible; inside a burst, the burst's first record keeps its stamp back
  // (held_stamp_), and the others wait behind its zero word.
  // `Head` is FrameHeader or CompactRecord (a template so that each copy has a fixed size).
  template <typename Head>
  void commit(const Head& head, uint64_t bytes);
  // Makes the records written so far visible and rings the doorbell if the peer sleeps;
  // inside a burst it only notes that there is something to publish.
  void publish();
  void publish_now();
  void flush();
  void reap_slots();
  bool has_output() const { return !queue_.empty() || busy_slots_ > 0; }

  // Consumer side. stamp_at_tail: zero while no record is there yet.
  uint64_t stamp_at_tail() const {
    auto* word = reinterpret_cast<uint64_t*>(in_.records + (in_tail_ & (in_.capacity - 1)));
    return std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
  }
  template <typename Consumer>
  void consume(Consumer& consumer);
  template <typename Consumer>
  void deliver_copied(Consumer& consumer, const transport::FrameHeader& header, uint64_t position);
  // False when the record is corrupt (the link has failed).
  template <typename Consumer>
  bool deliver_compact(Consumer& consumer, const transport::FrameHeader& line);
  template <typename Consumer>
  void deliver_single_copy(Consumer& consumer, const transport::FrameHeader& record);
  // The single-copy steps that need no consumer. claim_slot: false when the sender
  // withdrew the message (skipped; the slot is freed). read_slot: false when the read
  // failed (the link has failed).
  bool claim_slot(uint64_t slot);
  bool read_slot(uint64_t slot, std::byte* target, uint64_t offset, uint64_t bytes);
  void finish_slot(uint64_t slot);
  // After a batch: publishes the new tail (once) and wakes a producer waiting for space.
  void release_consumed();
  // After consuming: reaps single-copy slots, flushes the queue, reports a failure.
  void progress_output();

  void ring_doorbell();
  void read_socket();

  int peer_;
  base::Fd socket_;
  transport::LinkHandler& handler_;
  std::shared_ptr<Segment> inbox_, peer_inbox_;
  RingView in_, out_;
  ShmLinkOptions options_;

  uint64_t out_head_ = 0, out_tail_seen_ = 0;
  transport::SendQueue queue_;
  void* slot_cookie_[kCmaSlots] = {};
  bool slot_busy_[kCmaSlots] = {};
  int busy_slots_ = 0;
  bool in_flush_ = false;
  int burst_depth_ = 0;
  uint64_t held_stamp_ = 0;  // of the burst's first record, at held_position_
  uint64_t held_position_ = 0;
  bool unpublished_ = false;  // records written in this burst, not yet published

  uint64_t in_tail_ = 0;
  bool in_consume_ = false;
  bool peer_closed_ = false;
  const char* peer_closed_why_ = "";  // how: closed, or reset
};

// ---------------------------------------------------------------------------------------
// The consumer loop: a template, so that the engine's calls are direct.

template <typename Consumer>
void ShmLink::progress(Consumer& consumer) {
  if (!failed()) {
    consume(consumer);
    progress_output();
  }
  report_failure(handler_);
}

template <typename Consumer>
void ShmLink::consume(Consumer& consumer) {
  if (in_consume_ || stamp_at_tail() == 0) return;
  in_consume_ = true;
  // What the consumer sends back while it handles the batch goes out in one publish.
  begin_burst();
  // At most one ring's worth per call, so that the tail is published and the producer
  // can go on.
  const uint64_t stop = in_tail_ + in_.capacity;
  while (!failed() && in_tail_ < stop && stamp_at_tail() != 0) {
    transport::FrameHeader h;
    std::memcpy(&h, in_.records + (in_tail_ & (in_.capacity - 1)), sizeof h);
    if (h.magic == transport::kFrameMagic) {
      deliver_copied(consumer, h, in_tail_ + sizeof h);
    } else if (h.magic == kCompactMagic) {
      if (!deliver_compact(consumer, h)) break;
    } else if (h.magic == kSingleCopyMagic && h.offset < kCmaSlots) {
      deliver_single_copy(consumer, h);
    } else {
      fail("corrupt record in the shared-memory ring (bad magic or slot)");
      break;
    }
    in_tail_ += record_bytes(h);
  }
  in_consume_ = false;
  release_consumed();
  end_burst();
}

template <typename Consumer>
void ShmLink::deliver_copied(Consumer& consumer, const transport::FrameHeader& h,
                             uint64_t position) {
  consumer.on_frame(peer_, h);
  uint64_t offset = 0;
  while (offset < h.payload_bytes) {
    uint64_t at = (position + offset) & (in_.capacity - 1);
    uint64_t take = std::min(h.payload_bytes - offset, in_.capacity - at);
    std::byte* target = consumer.payload_target(peer_, h, offset);
    if (target != nullptr) std::memcpy(target, in_.records + at, take);
    offset += take;
  }
  consumer.on_payload_done(peer_, h);
}

template <typename Consumer>
bool ShmLink::deliver_compact(Consumer& consumer, const transport::FrameHeader& line) {
  // The line's bytes, read as the record they are (not as the FrameHeader they came in).
  CompactRecord c;
  std::memcpy(&c, reinterpret_cast<const std::byte*>(&line), sizeof c);
  if (c.payload_bytes > kCompactPayload) {
    fail("corrupt record in the shared-memory ring (compact payload too long)");
    return false;
  }
  // The payload from the copy of the line already read, not from the ring again.
  const std::byte* payload = reinterpret_cast<const std::byte*>(&line) + sizeof c;
  if constexpr (requires { consumer.on_whole_frame(peer_, line, payload); }) {
    consumer.on_whole_frame(peer_, expand(c), payload);
  } else {
    transport::deliver_whole_frame(consumer, peer_, expand(c), payload);
  }
  return true;
}

template <typename Consumer>
void ShmLink::deliver_single_copy(Consumer& consumer, const transport::FrameHeader& record) {
  // Withdrawn by the sender: the message is skipped, as a dropped stream remainder is,
  // and the sender's kCancel follows.
  if (!claim_slot(record.offset)) return;
  transport::FrameHeader h = record;
  h.magic = transport::kFrameMagic;
  h.offset = 0;
  consumer.on_frame(peer_, h);
  for (uint64_t offset = 0; offset < h.payload_bytes;) {
    uint64_t take = std::min(kSingleCopyPiece, h.payload_bytes - offset);
    std::byte* target = consumer.payload_target(peer_, h, offset);
    if (target != nullptr && !read_slot(record.offset, target, offset, take)) return;
    offset += take;
  }
  finish_slot(record.offset);
  consumer.on_payload_done(peer_, h);
}

}  // namespace weft::transport::shm

// Link: an ordered, reliable channel of frames to one peer (a FrameHeader plus
// header.payload_bytes of payload). Links never block: progress() moves whatever the
// operating system accepts now and returns; the engine decides when to wait.
//
// Incoming frames are handed to a LinkHandler, which says where each payload goes, so
// payloads land directly in the user's buffer. A link that fails (connection reset,
// EOF, a corrupt frame) reports it once through on_link_failed() and refuses further
// sends. All calls on a link and its handler come from one thread at a time (the engine
// holds its lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/failure.h"
#include "transport/frame.h"

namespace weft::transport {

class LinkHandler {
 public:
  virtual ~LinkHandler() = default;

  // A frame header arrived; its payload (if any) follows.
  virtual void on_frame(int peer, const FrameHeader& header) = 0;
  // Where the next bytes of that frame's payload go: `offset` is the position within
  // this frame's payload. Returns a buffer for at least payload_bytes - offset bytes,
  // or nullptr to discard them. Asked again for every piece, so the answer may change
  // (e.g. after the receive was abandoned).
  virtual std::byte* payload_target(int peer, const FrameHeader& header, uint64_t offset) = 0;
  // The CUDA device whose memory payload_target answers for this frame, -1 for host
  // memory. Asked only by links that take device memory (Link::takes_device_memory), for
  // frames whose payload they receive by RDMA.
  virtual int payload_device(int /*peer*/, const FrameHeader& /*header*/) { return -1; }
  // The whole payload of the frame has arrived (called even for payload_bytes == 0).
  virtual void on_payload_done(int peer, const FrameHeader& header) = 0;
  // A whole frame whose payload (payload_bytes) is already in memory at `payload`: the
  // three calls above at once. Links call it when they hold a frame whole (shared
  // memory's one-line records, a TCP frame within one read), so that a handler may take
  // it on a shorter path.
  virtual void on_whole_frame(int peer, const FrameHeader& header, const std::byte* payload);
  // A send queued with a non-null cookie has been written out completely.
  virtual void on_sent(int peer, void* cookie) = 0;
  // The link is dead; `failure` says how ("connection reset by peer", "peer left").
  virtual void on_link_failed(int peer, const base::Failure& failure) = 0;
};

// The three frame calls for a frame whose payload is whole in memory, for any consumer
// that has them (a LinkHandler, or a link's direct consumer).
template <typename Consumer>
void deliver_whole_frame(Consumer& consumer, int peer, const FrameHeader& header,
                         const std::byte* payload) {
  consumer.on_frame(peer, header);
  if (header.payload_bytes > 0) {
    std::byte* target = consumer.payload_target(peer, header, 0);
    if (target != nullptr) std::memcpy(target, payload, header.payload_bytes);
  }
  consumer.on_payload_done(peer, header);
}

inline void LinkHandler::on_whole_frame(int peer, const FrameHeader& header,
                                        const std::byte* payload) {
  deliver_whole_frame(*this, peer, header, payload);
}

class Link {
 public:
  virtual ~Link() = default;

  virtual int peer() const = 0;
  // "tcp 127.0.0.1:40312 -> 127.0.0.1:41877", for logs and errors.
  virtual std::string describe() const = 0;

  // Queues a frame. Returns true if it was written out at once. Otherwise, with a
  // cookie, `payload` (header.payload_bytes long) must stay valid until on_sent(cookie)
  // reports the frame written; without one (nullptr), the link keeps a copy of what it
  // could not write, so the payload's memory is free as soon as send() returns.
  // Throws weft::Error if the link has failed.
  virtual bool send(const FrameHeader& header, const void* payload, void* cookie) = 0;

  // Sends `bytes` from `data` as a sequence of frames built from `header` (each with
  // payload_bytes and offset filled in), letting control frames queued later overtake
  // the remaining pieces. on_sent(cookie) reports completion.
  virtual void send_stream(const FrameHeader& header, const void* data, uint64_t bytes,
                           void* cookie) = 0;

  // GPUDirect RDMA (verbs; docs/ARCHITECTURE.md, "Verbs"): whether device memory may be
  // handed to this link, by send_stream_by_rdma and as a payload target of a device
  // (LinkHandler::payload_device). The CPU never copies it: only the adapter reaches it.
  virtual bool takes_device_memory() const { return false; }
  // send_stream, every piece moved by RDMA whatever its size, so that no CPU copy reads
  // `data` nor writes the peer's target: `device` >= 0 when `data` is that CUDA device's
  // memory, -1 for host memory going to a target in the peer's device memory. Only on
  // links whose pair takes device memory; the others refuse it (weft::Error).
  virtual void send_stream_by_rdma(const FrameHeader& header, const void* data, uint64_t bytes,
                                   void* cookie, int device);

  // Stops referring to `cookie`'s memory: frames not yet started are still sent but
  // from a private copy (so the byte stream and sequence numbers stay intact), and the
  // unsent remainder of a stream is dropped. No on_sent for `cookie` follows. Returns
  // true if a stream remainder was dropped.
  virtual bool abandon(void* cookie) = 0;

  // Reads and writes without blocking. Dispatches handler upcalls.
  virtual void progress() = 0;

  // The handler gives up the target of the frame this link is delivering now (the
  // receive it belongs to was abandoned; payload_target answers nullptr from now on).
  // Once this returns, nothing more is written into that memory. Links that copy every
  // piece themselves, asking payload_target first, have nothing to do; a link whose
  // peer writes into the target directly (RDMA) waits for the writes it allowed.
  virtual void withdraw_incoming() {}

  // A burst: frames sent between begin_burst() and end_burst() may be held back and go
  // out together at end_burst() (one writev, one shared-memory publish), in order and
  // with send()'s guarantees unchanged. Outside a burst every send goes out at once.
  // Bursts nest; a link holds one itself around each batch of frames it delivers, so
  // what the handler sends back while it handles them leaves together.
  virtual void begin_burst() {}
  virtual void end_burst() {}

  // A link whose incoming data raises no readiness event (shared memory) is busy-polled:
  // the engine calls progress() on every pass, and its descriptor only becomes readable
  // when the peer rings its doorbell or goes away.
  virtual bool busy_polled() const { return false; }
  // epoll reports poll_fd() readable.
  virtual void service_fd() { progress(); }
  // The engine is about to sleep in epoll: a busy-polled link asks its peer to ring the
  // doorbell after its next change. Returns false if work has arrived meanwhile, and
  // the engine must not sleep. woke_up() follows every call.
  virtual bool prepare_to_sleep() { return true; }
  virtual void woke_up() {}

  // For readiness waits: the descriptor to watch, and whether output is pending.
  virtual int poll_fd() const = 0;
  virtual bool wants_write() const = 0;
  bool failed() const { return failure_.failed(); }

  // Writes out everything queued, waiting at most `timeout_ms`; then stops sending and
  // releases the connection. Used when the process group is destroyed.
  virtual void drain_and_close(int timeout_ms) = 0;

 protected:
  // A link fails once: the first reason sticks, the handler hears of it once
  // (report_failure), and sends are refused from then on. A link closed on purpose
  // counts as failed with nothing to report.
  void fail(std::string why) { failure_.set(ErrorCode::kPeer, std::move(why), peer()); }
  void report_failure(LinkHandler& handler) {
    if (failure_ && !failure_reported_) {
      failure_reported_ = true;
      handler.on_link_failed(peer(), failure_);
    }
  }
  void close_quietly() {
    failure_.set(ErrorCode::kPeer, "closed", peer());
    failure_reported_ = true;
  }
  // For a send: PeerError naming the peer once the link has failed.
  void refuse_if_failed() const {
    if (failure_) failure_.raise("link to rank " + std::to_string(peer()) + " has failed");
  }

 private:
  base::Failure failure_;
  bool failure_reported_ = false;
};

}  // namespace weft::transport

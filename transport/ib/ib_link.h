// IbLink: a Link to one peer over one reliable-connected queue pair (InfiniBand or RoCE
// verbs).
//
// Frames that fit an eager buffer go as one SEND, copied into a buffer registered once,
// into a receive the peer posted for this link; credits (transport/ib/credits.h) make
// sure one is always posted. Larger frames, and the pieces of streams, go by a
// rendezvous of the link's own: an RTS SEND carries the frame header, the receiver asks
// its handler where the payload goes, registers that memory and answers with a CTS
// (address, length, rkey), and the sender RDMA-WRITEs the payload there, the last write
// with the transfer's number as its immediate, whose arrival delivers the frame. A
// receiver whose handler discards the payload answers with a discarding CTS, and the
// sender writes nothing. Other frames go at once behind an RTS; a receiver still waiting
// for a payload copies them aside, posts their receives again (credit keeps flowing)
// and delivers them once the payload has landed. Streams move in pieces of
// IbLinkOptions::piece_bytes, each its own rendezvous, one after the other, so that
// control frames wait for one piece at most.
//
// The pair's TCP connection stays open beside the queue pair, as for shared memory:
// to wake a peer sleeping in epoll (completions raise no event here: the link is
// busy-polled) and to tell that the peer is gone (the kernel closes its socket however
// it dies). Before sleeping, a link RDMA-WRITEs a new sleep generation into a word of
// the peer's; a peer that posts a SEND or the last write of a transfer, and then (or
// once it completes) finds a generation it has not answered, writes one byte to the
// socket. The write is complete before the sleeper looks at its queues a last time, so
// one of the two always sees the other.
//
// A completion with an error, a queue pair gone to the error state, or the socket
// closing becomes the link's failure, naming the peer and the verbs status.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/socket.h"
#include "transport/ib/credits.h"
#include "transport/ib/gpudirect.h"
#include "transport/ib/ib_endpoint.h"
#include "transport/ib/link_wire.h"
#include "transport/ib/registration_cache.h"
#include "transport/ib/verbs_context.h"
#include "transport/link.h"
#include "transport/send_queue.h"

namespace weft::transport::ib {

struct IbLinkOptions {
  // A stream moves in pieces of this, each its own rendezvous: what a control frame
  // queued behind it waits for at most, and what of an abandoned receive may still
  // land in its buffer.
  uint64_t piece_bytes = 16 << 20;
  // The largest RDMA WRITE (lowered to the port's max_msg_sz; a scatter/gather entry's
  // length is 32 bits): a frame's payload is written in chunks of this.
  uint64_t write_bytes = 1 << 30;
  // A request completes within the transport's retries (about half a second) or fails;
  // one outstanding this long with no completion at all was lost, and fails the link.
  std::chrono::milliseconds completion_wait{30'000};
};

class IbLink final : public transport::Link {
 public:
  // `endpoint` is connected already, its receives posted; `socket` is the pair's TCP
  // connection.
  IbLink(int peer, base::Fd socket, transport::LinkHandler& handler,
         std::unique_ptr<IbEndpoint> endpoint, IbLinkOptions options = {});
  ~IbLink() override;

  int peer() const override { return peer_; }
  // "ib softib0:1 qpn 12 -> qpn 13 (RoCE v2 gid 1, mtu 4096)"
  std::string describe() const override { return description_; }

  bool send(const transport::FrameHeader& header, const void* payload, void* cookie) override;
  void send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                   void* cookie) override;
  // GPUDirect RDMA: where this process registers device memory by dma-buf or peermem
  // (gpudirect.h); a device source or target is registered so for its transfer alone.
  bool takes_device_memory() const override { return device_path_ != DeviceBufferPath::kStaged; }
  // Host memory may go so whatever the choice (its target is the peer's device memory).
  void send_stream_by_rdma(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                           void* cookie, int device) override;
  bool abandon(void* cookie) override;
  void progress() override;
  // The peer may be writing into the frame's target: a clear-to-send not sent yet is
  // turned into a discarding one, else this waits (polling) until the transfer's last
  // write has landed, or the link fails.
  void withdraw_incoming() override;

  // Posts are not held back: a burst only keeps the doorbell to one ring at its end.
  void begin_burst() override { ++burst_depth_; }
  void end_burst() override;

  bool busy_polled() const override { return true; }
  void service_fd() override;
  bool prepare_to_sleep() override;

  int poll_fd() const override { return socket_.get(); }
  bool wants_write() const override { return false; }  // nothing waits on the socket
  void drain_and_close(int timeout_ms) override;

  // For tests.
  const Credits& credits() const { return credits_; }
  uint64_t transfers_started() const { return next_transfer_; }
  uint64_t doorbells_rung() const { return doorbells_; }

 private:
  // A frame of this side whose payload goes by RDMA WRITE.
  struct Outgoing {
    transport::SendQueue::Frame frame;
    uint32_t id = 0;
    bool granted = false;  // its CTS came
    uint64_t remote_address = 0;
    uint32_t rkey = 0;
    Registration source;
    uint64_t posted = 0;  // payload bytes whose WRITE is posted
    uint32_t writes_outstanding = 0;
    bool last_posted = false;  // the WRITE_WITH_IMM: frames may follow it now
  };
  // A frame of the peer's whose payload is being written into its target.
  struct Incoming {
    transport::FrameHeader header;
    uint32_t id = 0;
    Registration target;
    bool discarded = false;  // withdrawn before its CTS went: it ends once that has gone
  };
  // A frame of the peer's that came while a payload was being written: it waits for
  // that frame to end.
  struct Held {
    transport::FrameHeader header;
    std::vector<std::byte> payload;
  };
  struct PendingCts {
    uint32_t id = 0;
    uint8_t flags = 0;
    CtsBody body;
  };

  bool fits_eager(uint64_t payload_bytes) const {
    return kFrameOverhead + payload_bytes <= eager_bytes_;
  }
  // Whether a frame may be posted now: credit, a buffer, and no clear-to-send waiting.
  bool may_post_frame() const {
    return credits_.may_send() && !free_buffers_.empty() && !pending_cts_;
  }
  bool has_output() const {
    return !queue_.empty() || out_.has_value() || pending_cts_.has_value() ||
           sends_outstanding_ > 0;
  }
  std::string where() const;  // "verbs link to rank 3 (softib0:1, qpn 12 -> 13)"

  // Sending.
  void flush();
  void post_frame(const transport::FrameHeader& header, const void* payload);
  // Announces `frame` (RTS); its payload goes once the CTS has come.
  void start_outgoing(transport::SendQueue::Frame frame);
  void post_writes();
  // The payload of `frame` to the memory it came from: a device's, by GPUDirect RDMA;
  // the host's, through the registration cache.
  Registration register_source(const transport::SendQueue::Frame& frame, std::string* why);
  void finish_outgoing();
  void send_pending_cts();
  void return_credit_if_owed();
  // Posts a SEND of `bytes` from eager send buffer `index` (filled already).
  bool post_buffer(uint32_t index, uint32_t bytes);
  IbWireHeader wire_header(WireKind kind, uint32_t transfer = 0, uint8_t flags = 0) {
    IbWireHeader w;
    w.kind = static_cast<uint8_t>(kind);
    w.flags = flags;
    w.transfer = transfer;
    w.credit = credits_.report();
    return w;
  }
  // Waits (polling) until the writes of transfer `id` posted so far have completed, so
  // that the adapter no longer reads the memory they came from.
  void wait_for_writes(uint32_t id);

  // Receiving and completions.
  bool poll_completions();
  // Fails the link when requests are outstanding and none has completed for
  // completion_wait (looked at once in a while: it reads the clock).
  void watch_completions();
  void note_send_progress() { send_progress_at_ = std::chrono::steady_clock::now(); }
  void handle_receives();
  void handle_receive(const ibv_wc& wc);
  void handle_sends();
  void handle_send(const ibv_wc& wc);
  void deliver_frame(const std::byte* buffer, uint32_t bytes, uint32_t index);
  // Delivers the frames held back, once no payload is being written.
  void deliver_held();
  void start_incoming(const transport::FrameHeader& header, uint32_t id);
  void on_cts(uint32_t id, const CtsBody& body, uint8_t flags);
  void on_last_write(uint32_t id);
  // Whether the completion of the last write of incoming transfer `id`, or an error, is
  // among those polled and not handled yet.
  bool last_write_polled(uint32_t id) const;
  void finish_discarded_incoming();
  void repost(uint32_t index);
  void protocol_failure(const std::string& what);
  void completion_failed(const ibv_wc& wc, const std::string& what);
  // "an RDMA WRITE of transfer 3 (1048576 bytes)", for a completion of this link.
  std::string what_failed(const ibv_wc& wc, bool send) const;
  // Once the link has failed: the queue pair is destroyed (the adapter stops), and the
  // registrations of transfers in flight are given back.
  void stop_after_failure();

  // Sleeping and the doorbell.
  void announce_sleep();
  void ring_if_peer_sleeps();
  void ring_doorbell();
  void read_socket();
  std::string closed_by_peer() const {
    return socket_error_.empty() ? "connection closed by the peer"
                                 : "connection to the peer failed: " + socket_error_;
  }

  int peer_;
  base::Fd socket_;
  transport::LinkHandler& handler_;
  std::unique_ptr<IbEndpoint> endpoint_;
  uint32_t qpn_ = 0;  // its queue pair's number, which outlives the queue pair
  VerbsContext& context_;
  const VerbsApi& api_;
  IbLinkOptions options_;
  uint64_t eager_bytes_;  // the largest SEND: our send buffers and the peer's receives
  uint64_t write_bytes_;
  DeviceBufferPath device_path_ = DeviceBufferPath::kStaged;
  std::string description_;

  Credits credits_;
  std::vector<uint32_t> free_buffers_;                      // eager send buffers
  uint32_t sends_outstanding_ = 0;                          // send work requests not yet completed
  std::chrono::steady_clock::time_point send_progress_at_;  // last completion, or first post
  uint32_t watch_count_ = 0;
  transport::SendQueue queue_;
  std::optional<Outgoing> out_;
  std::optional<Incoming> in_;
  std::optional<PendingCts> pending_cts_;
  std::deque<Held> held_;
  uint32_t next_transfer_ = 0;

  VerbsContext::Mailbox mailbox_;
  std::vector<ibv_wc> work_receives_, work_sends_;  // the batch being handled

  bool in_progress_ = false;
  bool in_flush_ = false;
  bool in_sends_ = false;
  bool stopped_ = false;
  bool closed_ = false;  // by drain_and_close
  int burst_depth_ = 0;

  uint64_t sleep_generation_ = 0;
  bool sleep_announced_ = false;  // and not yet answered by a doorbell
  uint64_t rung_for_ = 0;         // the peer's generation last answered
  bool bell_due_ = false;         // in a burst
  uint64_t doorbells_ = 0;
  bool peer_closed_ = false;
  std::string socket_error_;  // why it closed, when not by an orderly EOF
};

}  // namespace weft::transport::ib

// ShmLink: a Link to a peer on the same host through shared memory. Frames travel in
// single-producer single-consumer rings (transport/shm/inbox.h): the sender copies a
// frame into its ring in the peer's inbox, header last; the receiver, polling the first
// word of the record at its tail, copies it out. No system call on that path, and no
// shared index on it either: the receiver touches only the record's own cache lines.
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
#pragma once

#include <sys/types.h>

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
  void send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                   void* cookie) override;
  bool abandon(void* cookie) override;
  void progress() override;

  bool busy_polled() const override { return true; }
  void service_fd() override;
  bool prepare_to_sleep() override;
  void woke_up() override;

  int poll_fd() const override { return socket_.get(); }
  bool wants_write() const override { return false; }  // space is announced by doorbell
  void drain_and_close(int timeout_ms) override;

 private:
  // Producer side.
  bool reserve(uint64_t bytes);
  void put(uint64_t position, const void* from, uint64_t bytes);
  bool push_frame(const transport::FrameHeader& header, const void* payload);
  bool push_single_copy(const transport::SendQueue::Stream& stream);
  // Writes `header` (its payload is in place already) as the record at out_head_, which
  // takes `bytes` of the ring, and makes it visible.
  void commit(const transport::FrameHeader& header, uint64_t bytes);
  void publish();
  void flush();
  void reap_slots();
  bool has_output() const { return !queue_.empty() || busy_slots_ > 0; }

  // Consumer side.
  uint64_t stamp_at_tail() const;  // zero: no record there yet
  void consume();
  void deliver_copied(const transport::FrameHeader& header, uint64_t position);
  void deliver_single_copy(const transport::FrameHeader& record);

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

  uint64_t in_tail_ = 0;
  bool in_consume_ = false;
  bool peer_closed_ = false;
};

}  // namespace weft::transport::shm

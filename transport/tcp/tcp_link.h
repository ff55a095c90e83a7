// TcpLink: a Link over one connected TCP socket. Frames are written with writev,
// gathering queued frames into one system call; control frames overtake the pieces of
// large streams. A frame sent while nothing is queued is written at once; one sent
// while the socket is full, or inside a burst (Link::begin_burst, and the frames of
// each read the link delivers), waits in the queue and leaves with the others in one
// writev, once the socket takes data again or the burst ends. Incoming bytes are read into a 16 KiB
// staging buffer and copied out, except large payloads, which are read straight into their target.
#pragma once

#include <sys/uio.h>

#include <optional>
#include <string>
#include <vector>

#include "base/socket.h"
#include "transport/link.h"
#include "transport/send_queue.h"

namespace weft::transport::tcp {

class TcpLink final : public transport::Link {
 public:
  // Takes over a connected socket (made non-blocking here). `stream_chunk` is the
  // payload size of each frame of a send_stream.
  TcpLink(int peer, base::Fd fd, transport::LinkHandler& handler, uint64_t stream_chunk = 4u << 20);
  ~TcpLink() override;

  int peer() const override { return peer_; }
  std::string describe() const override { return description_; }

  bool send(const transport::FrameHeader& header, const void* payload, void* cookie) override;
  void send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                   void* cookie) override;
  bool abandon(void* cookie) override;
  void progress() override;
  void begin_burst() override { ++burst_depth_; }
  void end_burst() override;

  int poll_fd() const override { return fd_.get(); }
  bool wants_write() const override {
    return write_failure_.empty() && (current_.has_value() || !queue_.empty());
  }
  void drain_and_close(int timeout_ms) override;

  // System calls that wrote (or tried to write) frames, for tests and benchmarks.
  uint64_t write_calls() const { return write_calls_; }

 private:
  void flush();
  bool next_frame();  // moves the next frame to write into current_
  void read();
  bool consume_staging();  // false once the link failed
  // A write failed (the peer is gone). While frames are being read, the failure waits
  // until the read is over: answering one frame (a clear-to-send, say) must not lose
  // the frames the peer sent after it, already received, before it went.
  void write_failed(const std::string& why);

  int peer_;
  base::Fd fd_;
  transport::LinkHandler& handler_;
  uint64_t stream_chunk_;
  std::string description_;

  // Write side.
  std::optional<transport::SendQueue::Frame> current_;  // the frame being written
  transport::SendQueue queue_;
  bool in_flush_ = false;
  int burst_depth_ = 0;
  // The last write left data behind (the socket buffer is full): further sends only
  // queue, rather than each retrying a write the kernel would refuse, until progress()
  // writes again.
  bool socket_full_ = false;
  uint64_t write_calls_ = 0;
  std::string write_failure_;  // a write failure progress() has yet to report; empty: none

  // Read side.
  std::vector<std::byte> staging_;
  size_t staging_begin_ = 0, staging_end_ = 0;
  transport::FrameHeader in_header_{};
  size_t in_header_bytes_ = 0;  // of the header being assembled
  bool in_payload_ = false;
  uint64_t in_payload_done_ = 0;
};

}  // namespace weft::transport::tcp

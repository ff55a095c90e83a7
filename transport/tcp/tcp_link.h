// TcpLink: a Link over one connected TCP socket. Frames are written with writev,
// gathering queued frames into one system call; control frames overtake the pieces of
// large streams. Incoming bytes are read into a 16 KiB staging buffer and copied out,
// except large payloads, which are read straight into their target.
#pragma once

#include <sys/uio.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "transport/link.h"
#include "transport/link_failure.h"
#include "transport/tcp/socket.h"

namespace weft::tcp {

class TcpLink final : public transport::Link {
 public:
  // Takes over a connected socket (made non-blocking here). `stream_chunk` is the
  // payload size of each frame of a send_stream.
  TcpLink(int peer, Fd fd, transport::LinkHandler& handler, uint64_t stream_chunk = 4u << 20);
  ~TcpLink() override;

  int peer() const override { return peer_; }
  std::string describe() const override { return description_; }

  bool send(const transport::FrameHeader& header, const void* payload, void* cookie) override;
  void send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                   void* cookie) override;
  bool abandon(void* cookie) override;
  void progress() override;

  int poll_fd() const override { return fd_.get(); }
  bool wants_write() const override {
    return current_.has_value() || !control_.empty() || !streams_.empty();
  }
  bool failed() const override { return failure_.failed; }
  void drain_and_close(int timeout_ms) override;

 private:
  struct OutFrame {
    transport::FrameHeader header;
    const std::byte* payload = nullptr;
    // A private copy of the payload, for sends without a cookie and abandoned ones. A
    // vector, not a string: frames are moved, and a short string's bytes would move with
    // the object and leave `payload` pointing at the old one.
    std::vector<std::byte> owned;
    void* cookie = nullptr;  // reported through on_sent when the frame is fully written
    void* owner = nullptr;   // the cookie whose memory `payload` points into
    uint64_t written = 0;    // bytes of header + payload already written
    uint64_t total() const { return sizeof(header) + header.payload_bytes; }
    // Switches `payload` to a private copy and forgets the caller's cookie.
    void own_payload();
  };
  struct OutStream {
    transport::FrameHeader header;
    const std::byte* data;
    uint64_t bytes;
    uint64_t next_offset = 0;
    void* cookie;
  };

  void flush();
  bool next_frame();  // moves the next frame to write into current_
  void read();
  bool consume_staging();  // false once the link failed

  int peer_;
  Fd fd_;
  transport::LinkHandler& handler_;
  uint64_t stream_chunk_;
  std::string description_;

  // Write side.
  std::optional<OutFrame> current_;  // the frame being written
  std::deque<OutFrame> control_;
  std::deque<OutStream> streams_;
  bool in_flush_ = false;

  // Read side.
  std::vector<std::byte> staging_;
  size_t staging_begin_ = 0, staging_end_ = 0;
  transport::FrameHeader in_header_{};
  size_t in_header_bytes_ = 0;  // of the header being assembled
  bool in_payload_ = false;
  uint64_t in_payload_done_ = 0;

  transport::LinkFailure failure_;
};

}  // namespace weft::tcp

// SendQueue: what a link has yet to write, in the order it goes out. Control frames
// (Link::send) go before the pieces of large streams (Link::send_stream), so a 1 GiB
// transfer never delays a small message, a credit or a clear-to-send queued behind it.
//
// A queued frame refers to its caller's memory only while the caller's cookie says the
// memory is the caller's to keep valid: a frame queued without a cookie, and every
// frame of an abandoned cookie, carries a private copy of its payload instead, so the
// byte stream and its sequence numbers stay intact whatever the caller does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "transport/frame.h"

namespace weft::transport {

class SendQueue {
 public:
  struct Frame {
    FrameHeader header;
    const std::byte* payload = nullptr;
    // A private copy of the payload. A vector, not a string: frames are moved, and a
    // short string's bytes would move with the object and leave `payload` pointing at
    // the old one.
    std::vector<std::byte> owned;
    void* cookie = nullptr;  // reported through on_sent once the frame is out
    void* owner = nullptr;   // the cookie whose memory `payload` points into
    uint64_t written = 0;    // bytes of header + payload out already (links that write
                             // a frame in parts)
    // A piece of a stream sent by RDMA (Link::send_stream_by_rdma): it never goes as a
    // copy, and `device` >= 0 when its payload is that CUDA device's memory.
    bool by_rdma = false;
    int device = -1;
    uint64_t total() const { return sizeof(header) + header.payload_bytes; }
    // Switches `payload` to a private copy and forgets the caller's cookie. Host memory
    // only: a link copies a device frame's payload through the device layer.
    void own_payload();
  };

  struct Stream {
    FrameHeader header;  // each piece's, with payload_bytes and offset filled in
    const std::byte* data = nullptr;
    uint64_t bytes = 0;
    uint64_t next_offset = 0;  // of the first piece not yet taken
    void* cookie = nullptr;    // reported through on_sent once the last piece is out
    bool single_copy = false;  // the receiver reads it from this process's memory (shm)
    bool by_rdma = false;      // each piece by RDMA, never copied (Frame::by_rdma)
    int device = -1;
  };

  // Queues a control frame; without a cookie its payload is copied now.
  void push_frame(const FrameHeader& header, const void* payload, void* cookie);
  void push_stream(const FrameHeader& header, const void* data, uint64_t bytes, void* cookie,
                   bool single_copy = false);
  // A stream whose pieces go by RDMA (Frame::by_rdma).
  void push_rdma_stream(const FrameHeader& header, const void* data, uint64_t bytes, void* cookie,
                        int device);

  bool empty() const { return control_.empty() && streams_.empty(); }
  bool has_control() const { return !control_.empty(); }
  std::deque<Frame>& control() { return control_; }
  Stream* first_stream() { return streams_.empty() ? nullptr : &streams_.front(); }
  void pop_stream() { streams_.pop_front(); }

  // Takes the next frame to write into `out`: the first control frame, else the next
  // piece (at most `chunk` payload bytes) of the first stream, whose last piece carries
  // the stream's cookie. False when nothing is queued.
  bool take_next(Frame& out, uint64_t chunk);

  // The caller takes back `cookie`'s memory: its queued frames switch to private
  // copies, and what is left of its streams is dropped. Returns true if a stream
  // remainder was dropped.
  bool abandon(void* cookie);

 private:
  std::deque<Frame> control_;
  std::deque<Stream> streams_;
};

}  // namespace weft::transport

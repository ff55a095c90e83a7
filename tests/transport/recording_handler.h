// RecordingHandler: a LinkHandler that records what a link delivers, for the tests that
// drive links by hand. Payloads of frames with recv_id != 0 are pieces of a stream and
// land in `streamed` at their offset (size it first); the others are kept per frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/failure.h"
#include "transport/link.h"

namespace weft::testing {

struct RecordingHandler : transport::LinkHandler {
  struct Frame {
    transport::FrameHeader header;
    std::string payload;
  };
  std::vector<Frame> frames;
  std::vector<uint8_t> streamed;
  std::vector<void*> sent;
  std::vector<std::string> failures;
  std::string current;

  void on_frame(int, const transport::FrameHeader& h) override {
    current.assign(h.recv_id ? 0 : h.payload_bytes, '\0');
  }
  std::byte* payload_target(int, const transport::FrameHeader& h, uint64_t offset) override {
    if (h.recv_id) return reinterpret_cast<std::byte*>(streamed.data()) + h.offset + offset;
    return reinterpret_cast<std::byte*>(current.data()) + offset;
  }
  void on_payload_done(int, const transport::FrameHeader& h) override {
    frames.push_back({h, current});
  }
  void on_sent(int, void* cookie) override { sent.push_back(cookie); }
  void on_link_failed(int, const base::Failure& failure) override {
    failures.push_back(failure.why());
  }
};

}  // namespace weft::testing

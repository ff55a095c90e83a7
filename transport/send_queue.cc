#include "transport/send_queue.h"

#include <algorithm>

namespace weft::transport {

void SendQueue::Frame::own_payload() {
  if (payload != nullptr && owned.empty() && header.payload_bytes > 0) {
    owned.assign(payload, payload + header.payload_bytes);
    payload = owned.data();
  }
  cookie = nullptr;
  owner = nullptr;
}

void SendQueue::push_frame(const FrameHeader& header, const void* payload, void* cookie) {
  Frame frame{header, static_cast<const std::byte*>(payload), {}, cookie, cookie, 0};
  if (cookie == nullptr) frame.own_payload();
  control_.push_back(std::move(frame));
}

void SendQueue::push_stream(const FrameHeader& header, const void* data, uint64_t bytes,
                            void* cookie, bool single_copy) {
  streams_.push_back({header, static_cast<const std::byte*>(data), bytes, 0, cookie, single_copy});
}

void SendQueue::push_rdma_stream(const FrameHeader& header, const void* data, uint64_t bytes,
                                 void* cookie, int device) {
  streams_.push_back(
      {header, static_cast<const std::byte*>(data), bytes, 0, cookie, false, true, device});
}

bool SendQueue::take_next(Frame& out, uint64_t chunk) {
  if (!control_.empty()) {
    out = std::move(control_.front());
    control_.pop_front();
    return true;
  }
  if (streams_.empty()) return false;
  Stream& s = streams_.front();
  out = Frame{};
  out.header = s.header;
  out.header.offset = s.next_offset;
  out.header.payload_bytes = std::min(chunk, s.bytes - s.next_offset);
  out.payload = s.data + s.next_offset;
  out.owner = s.cookie;
  out.by_rdma = s.by_rdma;
  out.device = s.device;
  s.next_offset += out.header.payload_bytes;
  if (s.next_offset == s.bytes) {
    out.cookie = s.cookie;
    streams_.pop_front();
  }
  return true;
}

bool SendQueue::abandon(void* cookie) {
  for (Frame& f : control_) {
    if (f.owner == cookie) f.own_payload();
  }
  const size_t before = streams_.size();
  std::erase_if(streams_, [cookie](const Stream& s) { return s.cookie == cookie; });
  return streams_.size() != before;
}

}  // namespace weft::transport

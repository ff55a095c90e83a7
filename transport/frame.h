// FrameHeader: the fixed 64-byte header that starts every frame on every link. The
// transport reads payload_bytes to find where the next frame starts and otherwise
// treats the header as opaque; p2p/protocol.h gives the kinds their meaning.
#pragma once

#include <cstdint>

namespace weft::transport {

inline constexpr uint16_t kFrameMagic = 0x5746;  // "WF": catches a stream out of step

struct FrameHeader {
  uint16_t magic = kFrameMagic;
  uint8_t kind = 0;   // p2p::FrameKind
  uint8_t dtype = 0;  // weft::DType of the message
  uint32_t comm = 0;  // communicator (group) id
  int32_t tag = 0;
  int32_t src = 0;             // sender's rank in the group `comm`
  uint64_t seq = 0;            // per (sender, receiver, comm) order of matchable messages
  uint64_t msg_bytes = 0;      // size of the whole message
  uint64_t payload_bytes = 0;  // bytes of payload that follow this header on the link
  uint64_t send_id = 0;        // sender's handle of a rendezvous send
  uint64_t recv_id = 0;        // receiver's handle of a matched receive
  uint64_t offset = 0;         // position of this frame's payload within the message
};
static_assert(sizeof(FrameHeader) == 64, "FrameHeader is one cache line");

}  // namespace weft::transport

// What an IbLink sends besides the frames it carries: every SEND starts with an
// IbWireHeader, which says what follows and returns credit; large payloads are
// announced (kRts), granted (kCts) and moved by RDMA WRITE, the last one with the
// transfer's number as its immediate. docs/ARCHITECTURE.md, "Verbs", tells the protocol.
#pragma once

#include <cstdint>

#include "transport/frame.h"

namespace weft::transport::ib {

enum class WireKind : uint8_t {
  kFrame = 1,  // a whole frame: FrameHeader and payload
  kRts,        // a frame whose payload follows by RDMA WRITE: FrameHeader
  kCts,        // where that payload goes: CtsBody
  kCredit,     // credit alone (the header's field)
};

inline constexpr uint8_t kCtsDiscard = 1;  // kCts: the receiver discards the payload

struct IbWireHeader {
  uint8_t kind = 0;
  uint8_t flags = 0;
  uint16_t reserved = 0;
  uint32_t transfer = 0;  // kRts, kCts: the transfer's number
  // The receives the sender has ever posted for the peer: the peer may have sent that
  // many SENDs and WRITE_WITH_IMMs in all. Cumulative, so a later value always wins.
  uint64_t credit = 0;
};
static_assert(sizeof(IbWireHeader) == 16);

struct CtsBody {
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint32_t rkey = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(CtsBody) == 24);

// The smallest eager buffer: a frame header and some payload.
inline constexpr uint64_t kMinBufferBytes = 256;
// What a frame costs in an eager buffer besides its payload.
inline constexpr uint64_t kFrameOverhead = sizeof(IbWireHeader) + sizeof(FrameHeader);

// Send work requests carry what they are in their wr_id: the kind in the top byte.
enum class SendWork : uint8_t {
  kBuffer = 1,  // a SEND from eager send buffer (low bits: its index)
  kWrite,       // an RDMA WRITE of a transfer (low bits: the transfer's number)
  kSleepFlag,   // the RDMA WRITE telling the peer this side is going to sleep
};
inline uint64_t send_wr_id(SendWork kind, uint32_t value) {
  return (static_cast<uint64_t>(kind) << 56) | value;
}
inline SendWork send_work_kind(uint64_t wr_id) { return static_cast<SendWork>(wr_id >> 56); }
inline uint32_t send_work_value(uint64_t wr_id) { return static_cast<uint32_t>(wr_id); }

}  // namespace weft::transport::ib

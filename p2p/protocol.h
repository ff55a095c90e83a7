// The point-to-point protocol spoken over every link (frames are transport/frame.h).
//
// Small messages go eagerly: one kEager frame carries header and payload, and the
// sender is done once it is written. Large messages (above the eager limit, or when the
// sender has used up its eager credit at that receiver) use a rendezvous: kRts announces
// the message, the receiver answers kCts once a receive matches it, and only then does
// the payload move, as kData frames straight into the receive buffer. So a receiver
// buffers at most its credit window of unexpected eager data per sender, whatever the
// sender does; unexpected large messages cost it only their 64-byte header.
//
// Matching is by (group, source, tag) in arrival order, and kEager/kRts frames of one
// sender and group carry consecutive sequence numbers, which the receiver checks.
//
// A collective's kEager and kRts frames carry the stamp of the sender's call
// (collectives/call_stamp.h) in recv_id, a field these kinds do not otherwise use; 0
// for point-to-point messages. A collective's receive takes only a message with its own
// call's stamp: any other is a DesyncError there, and kDesync tells the other members.
#pragma once

#include <cstdint>

#include "transport/frame.h"

namespace weft::p2p {

// Group ids beyond this in a frame mean a corrupt stream, not a real group.
inline constexpr uint32_t kMaxComms = 1u << 20;

enum class FrameKind : uint8_t {
  kEager = 1,  // a whole small message
  kRts,        // a large message is ready: send_id, msg_bytes, tag, dtype, seq
  kCts,        // receiver matched an RTS: send_id, recv_id (0: declined, send nothing);
               // offset: kCtsToDevice when the receive buffer is device memory
  kData,       // payload of a large message: recv_id, offset, payload_bytes
  kCancel,     // the sender withdrew an announced large message: recv_id; src says why
               // (a WithdrawReason, or the world rank whose failure made it give up)
  kCredit,     // the receiver consumed msg_bytes of eager data from this sender
  kGoodbye,    // the sender is leaving the job; src: the world rank whose failure it had
               // seen (the root cause of its leaving), or -1
  kAbort,      // the sender called weft::abort: every pending operation fails
  kDesync,     // the ranks disagree about the collective (comm, tag): src, the world
               // rank whose message showed it; send_id, that message's call stamp;
               // recv_id, the finder's own; offset, the finder's world rank (the sender,
               // or a rank that passes on what the finder told it)
};

const char* frame_kind_name(uint8_t kind);

// A header of `kind` with every other field zero, for control frames.
inline transport::FrameHeader control_header(FrameKind kind) {
  transport::FrameHeader h;
  h.kind = static_cast<uint8_t>(kind);
  return h;
}

// Why a sender withdrew a large message, in the src field of its kCancel frame when no
// peer's failure was the cause (otherwise src is that peer's world rank).
enum WithdrawReason : int32_t {
  kWithdrawnAfterTimeout = -1,  // the send (or the collective it belongs to) timed out
  kWithdrawnAfterError = -2,    // the collective it belongs to failed otherwise
};

// In a kCts's offset: the payload goes into the receiver's device memory (GPUDirect
// RDMA), so every piece must go by the link's RDMA, none copied by a CPU
// (Link::send_stream_by_rdma). docs/ARCHITECTURE.md, "Verbs".
inline constexpr uint64_t kCtsToDevice = 1;

// Eager data is charged this much on top of its payload, so that even zero-byte
// messages use up credit and a receiver's unexpected queue stays bounded.
inline constexpr uint64_t kEagerOverheadBytes = 64;

}  // namespace weft::p2p

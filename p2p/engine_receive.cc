// Engine, receiving side: matching arrivals against receives (and the reverse), the
// rendezvous answers, credit returns, and the LinkHandler upcalls for incoming frames.
#include <cstring>

#include "base/log.h"
#include "p2p/engine.h"
#include "p2p/protocol.h"
#include "weft/error.h"

namespace weft::p2p {

using p2p::OpKind;
using p2p::OpStage;
using p2p::RequestState;
using transport::FrameHeader;

const char* frame_kind_name(uint8_t kind) {
  switch (static_cast<FrameKind>(kind)) {
    case FrameKind::kEager:
      return "EAGER";
    case FrameKind::kRts:
      return "RTS";
    case FrameKind::kCts:
      return "CTS";
    case FrameKind::kData:
      return "DATA";
    case FrameKind::kCancel:
      return "CANCEL";
    case FrameKind::kCredit:
      return "CREDIT";
    case FrameKind::kGoodbye:
      return "GOODBYE";
    case FrameKind::kAbort:
      return "ABORT";
    case FrameKind::kDesync:
      return "DESYNC";
  }
  return "unknown";
}

base::Failure Engine::why_misfit(const RequestState& recv, const FrameHeader& h,
                                 int world_peer) const {
  // The call stamp first: another collective's message would misfit in size or dtype
  // as a consequence.
  if (recv.stamp != h.recv_id) [[unlikely]]
    return stamp_mismatch(h, world_peer, recv.stamp);
  auto dtype = static_cast<DType>(h.dtype);
  if (dtype == recv.tensor.dtype() && h.msg_bytes <= recv.tensor.bytes()) return {};
  std::string who = "rank " + std::to_string(h.src) + " (tag " + std::to_string(h.tag) + ")";
  if (dtype != recv.tensor.dtype()) {
    return {ErrorCode::kInvalidArgument,
            recv.describe() + ": " + who + " sent " + dtype_name(dtype) +
                " data but the receive buffer is " + dtype_name(recv.tensor.dtype()) +
                "; nothing was written"};
  }
  if (h.msg_bytes > recv.tensor.bytes()) {
    return {ErrorCode::kInvalidArgument,
            recv.describe() + ": the message from " + who + " has " + std::to_string(h.msg_bytes) +
                " bytes but the receive buffer holds " + std::to_string(recv.tensor.bytes()) +
                "; nothing was written"};
  }
  return {};
}

void Engine::take_message_fields(RequestState& recv, const FrameHeader& h) {
  recv.peer = h.src;
  recv.peer_world = recv.group->world_ranks[h.src];
  recv.tag = h.tag;
  recv.bytes = h.msg_bytes;
}

void Engine::deliver_unexpected(const RequestPtr& recv,
                                const std::shared_ptr<UnexpectedMessage>& message) {
  const FrameHeader& h = message->header;
  base::Failure refusal = misfit(*recv, h, message->world_peer);
  if (message->self_send) {
    RequestPtr send = message->self_send;
    if (!refusal) {
      take_message_fields(*recv, h);
      if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), send->tensor.data(), h.msg_bytes);
      complete(recv);
    } else {
      refuse(recv, refusal, h, message->world_peer);
    }
    complete(send);
    return;
  }
  if (h.kind == static_cast<uint8_t>(FrameKind::kRts)) {
    accept_rts(recv, h, message->world_peer);
    return;
  }
  // Eager.
  if (refusal) {
    refuse(recv, refusal, h, message->world_peer);
    if (message->payload_complete) {
      consume_credit(message->world_peer, h.msg_bytes);
    } else {
      message->claimed = true;  // its credit is returned once the payload has arrived
    }
    return;
  }
  take_message_fields(*recv, h);
  if (!message->payload_complete) {
    recv->stage = OpStage::kStreaming;
    message->claimed = true;
    message->claimed_by = recv;
    return;
  }
  if (h.msg_bytes > 0) std::memcpy(recv->tensor.data(), message->payload.data(), h.msg_bytes);
  consume_credit(message->world_peer, h.msg_bytes);
  complete(recv);
}

void Engine::accept_rts(const RequestPtr& recv, const FrameHeader& rts, int world_peer) {
  if (world_peer != rank_ && peers_[world_peer].failure) {
    fail(recv, std::make_exception_ptr(peer_error(world_peer, recv->describe())));
    return;
  }
  FrameHeader cts = control_header(FrameKind::kCts);
  cts.send_id = rts.send_id;
  base::Failure refusal = misfit(*recv, rts, world_peer);
  if (refusal || rts.msg_bytes == 0) {
    // recv_id 0 declines: the sender completes without sending its payload.
    send_control(world_peer, cts);
    if (!refusal) {
      take_message_fields(*recv, rts);
      complete(recv);
    } else {
      refuse(recv, refusal, rts, world_peer);
    }
    return;
  }
  take_message_fields(*recv, rts);
  if (recv->device_target != nullptr && rts.msg_bytes > options_.eager_limit) [[unlikely]] {
    // Large enough to have come by rendezvous whatever the sender's credit: straight into
    // device memory, and the sender told so, so that no piece of it goes as a copy.
    recv->device = recv->target_device;
    cts.offset = kCtsToDevice;
  }
  recv->id = next_id_++;
  recv->stage = OpStage::kStreaming;
  active_recvs_.emplace(recv->id, recv);
  cts.recv_id = recv->id;
  send_control(world_peer, cts);
}

void Engine::consume_credit(int world_peer, uint64_t bytes) {
  if (world_peer == rank_) return;
  Peer& p = peers_[world_peer];
  p.credit_owed += bytes + kEagerOverheadBytes;
  // Return credit in batches: often enough that a streaming sender never stalls on an
  // idle window, rarely enough to cost little.
  if (p.credit_owed >= options_.eager_window / 4) {
    FrameHeader credit = control_header(FrameKind::kCredit);
    credit.msg_bytes = p.credit_owed;
    p.credit_owed = 0;
    send_control(world_peer, credit);
  }
}

void Engine::log_frame(bool outgoing, int world_peer, const FrameHeader& h) const {
  WEFT_LOG(TRACE) << (outgoing ? "sending " : "received ") << frame_kind_name(h.kind)
                  << (outgoing ? " to " : " from ") << peer_name(world_peer) << ": group " << h.comm
                  << " src " << h.src << " tag " << h.tag << " seq " << h.seq << " message "
                  << h.msg_bytes << " B, payload " << h.payload_bytes << " B at " << h.offset
                  << ", send_id " << h.send_id << " recv_id " << h.recv_id;
}

void Engine::out_of_sequence(int peer, const FrameHeader& h) {
  if (h.comm >= kMaxComms) {
    protocol_error(peer, "group id " + std::to_string(h.comm) + " out of range");
  } else if (h.src < 0 || h.src >= world_size()) {
    protocol_error(peer, "source rank " + std::to_string(h.src) + " out of range");
  } else {
    protocol_error(peer, "message sequence " + std::to_string(h.seq) + " where " +
                             std::to_string(comm(h.comm).recv_seq[peer]) + " was due");
  }
}

void Engine::on_whole_frame(int peer, const FrameHeader& h, const std::byte* payload) {
  if (h.kind != static_cast<uint8_t>(FrameKind::kEager)) {
    LinkHandler::on_whole_frame(peer, h, payload);
    return;
  }
  // on_frame, payload_target and on_payload_done for an eager frame, in one step.
  trace_frame(false, peer, h);
  if (!in_sequence(peer, h)) return;
  Matcher& m = matcher(h.comm);
  if (RequestState* recv = m.take_posted(h.src, h.tag)) {
    if (recv->done.load(std::memory_order_relaxed)) [[unlikely]] {
      // It failed where it stood (shutdown): the payload goes with it, and so does the
      // engine's last reference (matcher.h).
      recv->self.reset();
    } else if (base::Failure refusal = misfit(*recv, h, peer)) [[unlikely]] {
      refuse(RequestPtr(recv->self), refusal, h, peer);  // the payload is discarded
    } else {
      take_message_fields(*recv, h);
      // As payload_target: never into a receive that was abandoned; its buffer may be
      // gone.
      if (h.payload_bytes > 0 && !recv->abandoned)
        std::memcpy(recv_target(*recv), payload, h.payload_bytes);
      complete(recv->self);  // the engine's own reference, which complete() takes over
    }
    consume_credit(peer, h.msg_bytes);
    return;
  }
  auto message = add_unexpected(m, peer, h);
  message->payload.assign(payload, payload + h.payload_bytes);
  message->payload_complete = true;
  // The credit is returned when a receive takes the message.
}

std::shared_ptr<UnexpectedMessage> Engine::add_unexpected(Matcher& m, int peer,
                                                          const FrameHeader& h) {
  auto message = new_message();
  message->header = h;
  message->world_peer = peer;
  m.add_unexpected(message);
  if (h.recv_id != 0) check_early_message(h, peer);
  return message;
}

void Engine::on_frame(int peer, const FrameHeader& h) {
  trace_frame(false, peer, h);
  Peer& p = peers_[peer];
  p.incoming = Incoming{};
  switch (static_cast<FrameKind>(h.kind)) {
    case FrameKind::kEager:
    case FrameKind::kRts: {
      if (!in_sequence(peer, h)) return;
      Matcher& m = matcher(h.comm);
      RequestPtr recv = take_posted(m, h.src, h.tag);
      if (h.kind == static_cast<uint8_t>(FrameKind::kRts)) {
        if (recv) {
          accept_rts(recv, h, peer);
        } else {
          add_unexpected(m, peer, h)->payload_complete = true;  // an RTS has no payload
        }
        return;
      }
      if (recv) {
        base::Failure refusal = misfit(*recv, h, peer);
        if (refusal) {
          refuse(recv, refusal, h, peer);
          return;  // the payload is discarded
        }
        take_message_fields(*recv, h);
        recv->stage = OpStage::kStreaming;
        p.incoming.to = Incoming::To::kRecv;
        p.incoming.recv = std::move(recv);
        return;
      }
      auto message = add_unexpected(m, peer, h);
      message->payload.resize(h.payload_bytes);
      p.incoming.to = Incoming::To::kUnexpected;
      p.incoming.message = std::move(message);
      return;
    }
    case FrameKind::kCts: {
      auto it = rendezvous_sends_.find(h.send_id);
      if (it == rendezvous_sends_.end()) {
        // The send was withdrawn: tell the receiver why.
        auto withdrawn = withdrawn_sends_.find(h.send_id);
        int reason = kWithdrawnAfterTimeout;
        if (withdrawn != withdrawn_sends_.end()) {
          reason = withdrawn->second;
          withdrawn_sends_.erase(withdrawn);
        }
        if (h.recv_id != 0) {
          FrameHeader cancel = control_header(FrameKind::kCancel);
          cancel.recv_id = h.recv_id;
          cancel.src = reason;
          send_control(peer, cancel);
        }
        return;
      }
      RequestPtr send = it->second;
      if (h.recv_id == 0) {
        rendezvous_sends_.erase(it);
        complete(send);
        return;
      }
      FrameHeader data = control_header(FrameKind::kData);
      data.recv_id = h.recv_id;
      data.send_id = h.send_id;
      data.msg_bytes = send->bytes;
      send->stage = OpStage::kStreaming;
      send->remote_id = h.recv_id;  // kept to cancel the stream if the send is abandoned
      trace_frame(true, peer, data);
      if (send->device >= 0 || h.offset == kCtsToDevice) [[unlikely]] {
        // Device memory at either end: the link moves every piece by RDMA.
        p.link->send_stream_by_rdma(data, send->tensor.data(), send->bytes, send.get(),
                                    send->device);
      } else {
        p.link->send_stream(data, send->tensor.data(), send->bytes, send.get());
      }
      after_send(p);
      return;
    }
    case FrameKind::kData: {
      auto it = active_recvs_.find(h.recv_id);
      if (it == active_recvs_.end()) return;  // abandoned: discard
      if (h.offset + h.payload_bytes > it->second->bytes) {
        return protocol_error(peer, "payload piece beyond the end of its message");
      }
      p.incoming.to = Incoming::To::kRecv;
      p.incoming.recv = it->second;
      p.incoming.base = h.offset;
      return;
    }
    case FrameKind::kCancel: {
      auto it = active_recvs_.find(h.recv_id);
      if (it == active_recvs_.end()) return;
      RequestPtr recv = it->second;
      active_recvs_.erase(it);
      // A sender that gave up because a third rank failed names that rank, which is
      // the error's cause here as well.
      const int reason = h.src;
      const bool third_rank = reason >= 0 && reason < world_size() && reason != peer;
      std::string why = peer_name(peer) + " withdrew the message " +
                        (third_rank ? "because " + peer_name(reason) + " failed"
                         : reason == kWithdrawnAfterError ? "after its operation failed"
                                                          : "after its send timed out");
      fail(recv, std::make_exception_ptr(PeerError(
                     third_rank ? reason : peer,
                     recv->describe() + ": " + why + " (" + std::to_string(recv->received) +
                         " of " + std::to_string(recv->bytes) + " bytes had arrived)")));
      return;
    }
    case FrameKind::kCredit:
      p.eager_credit += h.msg_bytes;
      return;
    case FrameKind::kGoodbye:
      p.left = true;
      p.left_after = h.src >= 0 && h.src < world_size() && h.src != peer ? h.src : -1;
      return;
    case FrameKind::kAbort:
      if (!shut_down_ && !aborted_) {
        base::Failure why(ErrorCode::kPeer,
                          peer_name(peer) + " aborted the job (it called weft::abort)", peer);
        WEFT_LOG(WARN) << why.why() << "; failing every pending operation";
        abort_locked(std::move(why));
      }
      return;
    case FrameKind::kDesync:
      if (h.comm >= kMaxComms)
        return protocol_error(peer, "group id " + std::to_string(h.comm) + " out of range");
      on_desync_frame(peer, h);
      return;
  }
  protocol_error(peer, std::string("unknown frame kind ") + std::to_string(h.kind));
}

std::byte* Engine::payload_target(int peer, const FrameHeader& h, uint64_t offset) {
  Incoming& in = peers_[peer].incoming;
  switch (in.to) {
    case Incoming::To::kRecv: {
      if (in.recv->done.load(std::memory_order_relaxed) || in.recv->abandoned) return nullptr;
      return recv_target(*in.recv) + in.base + offset;
    }
    case Incoming::To::kUnexpected:
      return in.message->payload.data() + offset;
    case Incoming::To::kNothing:
      break;
  }
  return nullptr;
}

int Engine::payload_device(int peer, const FrameHeader&) {
  const Incoming& in = peers_[peer].incoming;
  return in.to == Incoming::To::kRecv ? in.recv->device : -1;
}

void Engine::on_payload_done(int peer, const FrameHeader& h) {
  Incoming in = std::move(peers_[peer].incoming);
  peers_[peer].incoming = Incoming{};
  auto kind = static_cast<FrameKind>(h.kind);
  if (kind == FrameKind::kEager) {
    if (in.to == Incoming::To::kUnexpected) {
      in.message->payload_complete = true;
      if (in.message->claimed) {
        RequestPtr recv = std::move(in.message->claimed_by);
        if (recv && !recv->done.load(std::memory_order_relaxed) && !recv->abandoned) {
          if (h.msg_bytes > 0)
            std::memcpy(recv->tensor.data(), in.message->payload.data(), h.msg_bytes);
          complete(recv);
        }
        consume_credit(peer, h.msg_bytes);
        recycle(in.message);
      }
      return;  // otherwise the credit is returned when a receive takes the message
    }
    consume_credit(peer, h.msg_bytes);
    if (in.to == Incoming::To::kRecv) complete(in.recv);
    return;
  }
  if (kind == FrameKind::kData && in.to == Incoming::To::kRecv) {
    RequestPtr recv = in.recv;
    recv->received += h.payload_bytes;
    if (recv->received == recv->bytes) {
      active_recvs_.erase(recv->id);
      complete(recv);
    }
  }
}

void Engine::on_sent(int peer, void* cookie) {
  // Cookies are pending sends: a link reports nothing for a send once it is completed
  // or abandoned.
  auto* state = static_cast<RequestState*>(cookie);
  if (state->done.load(std::memory_order_relaxed)) return;
  RequestPtr send = state->self;
  if (send->stage == OpStage::kStreaming) rendezvous_sends_.erase(send->id);
  complete(send);
}

}  // namespace weft::p2p

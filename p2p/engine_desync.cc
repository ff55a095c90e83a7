// Engine, desyncs: ranks whose collective calls disagree. Every message of a collective
// carries its call's stamp (p2p/protocol.h), and each rank keeps a log of the calls it
// has begun per group. A receive that meets a message of another call, or a message
// that arrives for a tag whose logged call differs, is a desync: the rank that finds it
// tells every other member with kDesync, since a member that saw nothing wrong would
// wait for messages that never come, or return a wrong answer. From then on every
// collective of the group fails with the DesyncError, as its rounds no longer line up.
#include "base/log.h"
#include "p2p/engine.h"
#include "p2p/protocol.h"
#include "weft/error.h"

namespace weft::p2p {

using transport::FrameHeader;

std::string Engine::describe_call(uint64_t stamp) const {
  if (stamp == 0) return "a point-to-point operation";
  if (options_.describe_call != nullptr) return options_.describe_call(stamp);
  return "a collective (call stamp " + std::to_string(stamp) + ")";
}

std::string Engine::disagreement(const std::string& one, uint64_t one_stamp,
                                 const std::string& other, uint64_t other_stamp) const {
  const std::string calls =
      one_stamp == other_stamp
          ? one + " and " + other + " called " + describe_call(one_stamp) + " with other counts"
          : one + " called " + describe_call(one_stamp) + " where " + other + " called " +
                describe_call(other_stamp);
  return calls + ": the ranks disagree about this collective";
}

std::string Engine::found_disagreement(int finder, int culprit, uint64_t culprit_stamp,
                                       uint64_t finder_stamp) const {
  auto name = [&](int rank) {
    if (rank < 0 || rank >= world_size()) return std::string("a rank");
    return rank == rank_ ? std::string("this rank") : peer_name(rank);
  };
  return name(finder) + " found that " +
         disagreement(name(culprit), culprit_stamp, "it", finder_stamp);
}

base::Failure Engine::stamp_mismatch(const FrameHeader& h, int world_peer, uint64_t stamp) const {
  return {ErrorCode::kDesync, disagreement(peer_name(world_peer), h.recv_id, "this rank", stamp)};
}

void Engine::refuse(const RequestPtr& recv, const base::Failure& refusal, const FrameHeader& h,
                    int world_peer) {
  fail(recv, refusal.as_exception());
  if (refusal.code() == ErrorCode::kDesync) found_desync(recv->group->comm, refusal, h, world_peer);
}

void Engine::found_desync(uint32_t comm_id, const base::Failure& why, const FrameHeader& h,
                          int world_peer) {
  Comm& c = comm(comm_id);
  if (c.desync) return;  // found or told already
  WEFT_LOG(WARN) << "group " << comm_id << ": " << why.why()
                 << "; failing its collectives on every member";
  FrameHeader tell = control_header(FrameKind::kDesync);
  tell.comm = comm_id;
  tell.tag = h.tag;
  tell.src = world_peer;
  tell.send_id = h.recv_id;
  tell.recv_id = c.calls[static_cast<uint32_t>(h.tag) % c.calls.size()].stamp;
  tell.offset = static_cast<uint64_t>(rank_);
  for (int w : c.members) {
    if (w != rank_ && ensure_link(w)) send_control(w, tell);
  }
  desync(comm_id, why);
}

void Engine::on_desync_frame(int peer, const FrameHeader& h) {
  Comm& c = comm(h.comm);
  if (c.desync) return;
  const int finder =
      h.offset < static_cast<uint64_t>(world_size()) ? static_cast<int>(h.offset) : peer;
  // Passed on to the other members before anything else goes to them: a member that this
  // rank's leaving (after the error) reached before the finder's word would blame the
  // leaving instead of the desync. On each link the word now comes first.
  for (int w : c.members) {
    if (w != rank_ && w != peer && w != finder && ensure_link(w)) send_control(w, h);
  }
  desync(h.comm, base::Failure(ErrorCode::kDesync,
                               found_disagreement(finder, h.src, h.send_id, h.recv_id)));
}

void Engine::note_call(const p2p::GroupState& group, int tag, uint64_t stamp) {
  Comm& c = comm(group.comm);
  Comm::Call& logged = c.calls[static_cast<uint32_t>(tag) % c.calls.size()];
  if (logged.tag == tag && logged.stamp == stamp) [[likely]]
    return;
  logged = {tag, stamp};
  if (c.members.empty()) c.members = group.world_ranks;
  if (c.matcher.unexpected_count() == 0 || c.desync) return;
  const UnexpectedMessage* early = c.matcher.find_unexpected(-1, tag);
  if (early != nullptr && early->header.recv_id != stamp) {
    found_desync(group.comm, stamp_mismatch(early->header, early->world_peer, stamp), early->header,
                 early->world_peer);
  }
}

void Engine::check_early_message(const FrameHeader& h, int world_peer) {
  Comm& c = comm(h.comm);
  const Comm::Call& logged = c.calls[static_cast<uint32_t>(h.tag) % c.calls.size()];
  if (logged.tag != h.tag || logged.stamp == h.recv_id || c.desync) return;
  found_desync(h.comm, stamp_mismatch(h, world_peer, logged.stamp), h, world_peer);
}

void Engine::desync(uint32_t comm_id, const base::Failure& why) {
  Comm& c = comm(comm_id);
  if (c.desync) return;
  c.desync = why;
  for (const RequestPtr& r : pending_requests()) {
    if (r->stamp == 0 || r->group->comm != comm_id) continue;
    if (r->kind == OpKind::kRecv) {
      withdraw_receive(*r);
    } else {
      withdraw_send(r, kWithdrawnAfterError);
    }
    fail(r, why.as_exception(r->describe()));
  }
}

}  // namespace weft::p2p

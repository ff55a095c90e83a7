#include "p2p/request_state.h"

#include "p2p/engine.h"
#include "weft/error.h"

namespace weft::p2p {
namespace {

// "<op> by rank R <direction> <peer> (<tag>, group G)"
std::string describe(const char* op, const char* direction, const GroupState& group, int peer,
                     int tag) {
  std::string other = peer < 0 ? "any rank" : "rank " + std::to_string(peer);
  std::string t = tag < 0 ? "any tag" : "tag " + std::to_string(tag);
  return std::string(op) + " by rank " + std::to_string(group.rank) + direction + other + " (" + t +
         ", group " + group.name + ")";
}

}  // namespace

std::string describe_op(OpKind kind, const GroupState& group, int peer, int tag) {
  if (kind == OpKind::kSend) return describe("send", " to ", group, peer, tag);
  return describe("recv", " from ", group, peer, tag);
}

bool RequestState::test() {
  bool finished = done.load(std::memory_order_acquire) || engine->test(*this);
  if (finished) finish_device_copy();
  return finished;
}

void RequestState::wait(Timeout timeout) {
  if (!done.load(std::memory_order_acquire)) {
    // Throws the request's error once it has completed.
    try {
      engine->wait(*this, timeout.count() >= 0 ? timeout : group->timeout);
    } catch (const TimeoutError&) {
      // With a timeout of its own, the wait may be a poll the caller repeats; with the
      // group's, the program has given up on this peer.
      if (timeout.count() < 0) engine->note_timed_out_waiting_for(peer_world);
      throw;
    }
  }
  finish_device_copy();
  if (error) std::rethrow_exception(error);
}

bool RequestState::cancel() {
  if (kind != OpKind::kRecv || done.load(std::memory_order_acquire)) return false;
  return engine->cancel_receive(*this);
}

void RequestState::finish_device_copy() {
  if (!finish_on_device || error) return;
  try {
    std::call_once(finished_on_device, finish_on_device);
  } catch (...) {
    error = std::current_exception();
  }
}

std::string describe_probe(const char* op, const GroupState& group, int src, int tag) {
  return describe(op, " from ", group, src, tag);
}

}  // namespace weft::p2p

// Matcher: MPI matching for one group. Receives wait in the posted queues, messages
// that no receive wanted yet in the unexpected queues, so that the first receive posted
// gets the first matching message (non-overtaking).
//
// Both are kept per source (group rank), so that a message or a receive naming its
// source searches only that source's entries, as Open MPI's per-peer queues do. Receives
// posted with any source wait in one queue of their own; every posted receive carries a
// posting number, and an arriving message goes to the earlier-posted of the first match
// in its source's queue and the first match in the wildcard queue. Unexpected messages
// carry an arrival number, and an any-source receive takes the earliest-arrived of the
// first matches of every source: exactly the order of one queue of each kind.
//
// A posted receive is queued by plain pointer: it is pending, so the engine's reference
// (RequestState::self) keeps it alive, and while `in_posted_queue` says it is queued the
// engine keeps that reference even once the receive has failed (Engine::complete), so
// that it still takes the message meant for it. Whoever takes it out drops the reference
// of a failed one. A counted pointer here cost two atomic read-modify-writes a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "p2p/request_state.h"
#include "p2p/ring_queue.h"
#include "transport/frame.h"

namespace weft::p2p {

// A message that arrived before a receive matched it.
struct UnexpectedMessage {
  transport::FrameHeader header;   // kEager or kRts
  int world_peer = -1;             // the sender's world rank
  std::vector<std::byte> payload;  // kEager: the payload, filled as it arrives
  bool payload_complete = false;
  uint64_t arrival = 0;  // set by the matcher: its place in the group's arrival order
  // A message this process sent to itself: the send completes when it is matched.
  std::shared_ptr<p2p::RequestState> self_send;
  // A receive took this eager message while its payload was still arriving: the
  // payload goes to `claimed_by` (null if that receive failed) once complete.
  bool claimed = false;
  std::shared_ptr<p2p::RequestState> claimed_by;
};

class Matcher {
 public:
  using MessagePtr = std::shared_ptr<UnexpectedMessage>;

  // A message from group rank `src` with `tag` arrived: takes the first posted receive
  // it matches out of the posted queues, or returns null. Inline for the common case:
  // no any-source receive posted, and the first one naming `src` takes the message.
  p2p::RequestState* take_posted(int src, int tag) {
    if (posted_count_ == 0) return nullptr;
    if (posted_any_.empty() && static_cast<size_t>(src) < posted_.size()) [[likely]] {
      RingQueue<p2p::RequestState*>& named = posted_[src];
      if (named.empty()) return nullptr;
      const int wanted = named.front()->tag;
      if (wanted < 0 || wanted == tag) return taken(named.take_front());
    }
    return take_first_posted(src, tag);
  }
  void add_unexpected(MessagePtr message);

  // A receive is being posted: takes the first unexpected message it matches out of the
  // unexpected queues, or returns null.
  MessagePtr take_unexpected(int src_filter, int tag_filter) {
    if (unexpected_count_ == 0) return nullptr;  // inline: the common case when posting
    return take_first_unexpected(src_filter, tag_filter);
  }
  // Probing: the message take_unexpected(src_filter, tag_filter) would take, left in the
  // queue; null if none.
  const UnexpectedMessage* find_unexpected(int src_filter, int tag_filter) const;
  void add_posted(p2p::RequestState* recv) {
    recv->posted = next_posted_++;
    recv->in_posted_queue = true;
    posted_queue(recv->peer).push_back(recv);
    ++posted_count_;
  }

  // Removes a posted receive (it was abandoned); false if it was not queued.
  bool remove_posted(p2p::RequestState* recv);

  // Removes and returns the posted receives for which `pred` is true.
  template <typename Pred>
  std::vector<p2p::RequestState*> take_posted_if(Pred pred);
  // Removes the unexpected messages for which `pred` is true.
  template <typename Pred>
  void drop_unexpected_if(Pred pred) {
    for (auto& queue : unexpected_) {
      queue.erase_if([&](const MessagePtr& m) {
        if (!pred(*m)) return false;
        --unexpected_count_;
        return true;
      });
    }
  }

  size_t posted_count() const { return posted_count_; }
  size_t unexpected_count() const { return unexpected_count_; }

 private:
  // An unexpected message: its source's queue and its index there (src -1: none).
  struct Found {
    int src = -1;
    size_t index = 0;
  };
  // The one search behind take_unexpected and find_unexpected, so that a probe reports
  // exactly the message the next matching receive takes.
  Found first_unexpected(int src_filter, int tag_filter) const;
  MessagePtr take_first_unexpected(int src_filter, int tag_filter);
  // take_posted's general case: a search of both queues a message may go to.
  p2p::RequestState* take_first_posted(int src, int tag);
  p2p::RequestState* taken(p2p::RequestState* recv) {
    recv->in_posted_queue = false;
    --posted_count_;
    return recv;
  }
  RingQueue<p2p::RequestState*>& posted_queue(int src_filter) {
    if (src_filter < 0) return posted_any_;
    if (static_cast<size_t>(src_filter) < posted_.size()) [[likely]]
      return posted_[src_filter];
    return new_posted_queue(src_filter);
  }
  RingQueue<p2p::RequestState*>& new_posted_queue(int src);

  std::vector<RingQueue<p2p::RequestState*>> posted_;  // by source, for receives naming one
  RingQueue<p2p::RequestState*> posted_any_;           // receives from any source
  std::vector<RingQueue<MessagePtr>> unexpected_;      // by source
  uint64_t next_posted_ = 0;
  uint64_t next_arrival_ = 0;
  size_t posted_count_ = 0;
  size_t unexpected_count_ = 0;
};

inline bool matches(int src_filter, int tag_filter, int src, int tag) {
  return (src_filter < 0 || src_filter == src) && (tag_filter < 0 || tag_filter == tag);
}

template <typename Pred>
std::vector<p2p::RequestState*> Matcher::take_posted_if(Pred pred) {
  std::vector<p2p::RequestState*> out;
  auto take = [&](RingQueue<p2p::RequestState*>& queue) {
    queue.erase_if([&](p2p::RequestState* r) {
      if (!pred(*r)) return false;
      r->in_posted_queue = false;
      out.push_back(r);
      return true;
    });
  };
  for (auto& queue : posted_) take(queue);
  take(posted_any_);
  posted_count_ -= out.size();
  return out;
}

}  // namespace weft::p2p

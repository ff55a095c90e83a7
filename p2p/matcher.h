// Matcher: MPI matching for one group. Receives wait in the posted queue, messages
// that no receive wanted yet wait in the unexpected queue, both in arrival order, so
// the first receive posted gets the first matching message (non-overtaking).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "p2p/request_state.h"
#include "transport/frame.h"

namespace weft::p2p {

// A message that arrived before a receive matched it.
struct UnexpectedMessage {
  transport::FrameHeader header;   // kEager or kRts
  int world_peer = -1;             // the sender's world rank
  std::vector<std::byte> payload;  // kEager: the payload, filled as it arrives
  bool payload_complete = false;
  // A message this process sent to itself: the send completes when it is matched.
  std::shared_ptr<p2p::RequestState> self_send;
  // A receive took this eager message while its payload was still arriving: the
  // payload goes to `claimed_by` (null if that receive failed) once complete.
  bool claimed = false;
  std::shared_ptr<p2p::RequestState> claimed_by;
};

class Matcher {
 public:
  using RequestPtr = std::shared_ptr<p2p::RequestState>;
  using MessagePtr = std::shared_ptr<UnexpectedMessage>;

  // A message from group rank `src` with `tag` arrived: takes the first posted receive
  // it matches out of the posted queue, or returns null.
  RequestPtr take_posted(int src, int tag);
  void add_unexpected(MessagePtr message) { unexpected_.push_back(std::move(message)); }

  // A receive is being posted: takes the first unexpected message it matches out of the
  // unexpected queue, or returns null.
  MessagePtr take_unexpected(int src_filter, int tag_filter);
  // Probing: the message take_unexpected(src_filter, tag_filter) would take, left in the
  // queue; null if none.
  const UnexpectedMessage* find_unexpected(int src_filter, int tag_filter) const;
  void add_posted(RequestPtr recv) { posted_.push_back(std::move(recv)); }

  // Removes a posted receive (it was abandoned); false if it was not queued.
  bool remove_posted(const p2p::RequestState* recv);

  // Removes and returns the posted receives for which `pred` is true.
  template <typename Pred>
  std::vector<RequestPtr> take_posted_if(Pred pred);
  // Removes the unexpected messages for which `pred` is true.
  template <typename Pred>
  void drop_unexpected_if(Pred pred) {
    std::erase_if(unexpected_, [&](const MessagePtr& m) { return pred(*m); });
  }

  size_t posted_count() const { return posted_.size(); }

 private:
  // The one search behind take_unexpected and find_unexpected, so that a probe reports
  // exactly the message the next matching receive takes.
  std::deque<MessagePtr>::const_iterator first_unexpected(int src_filter, int tag_filter) const;

  // Deques: matching takes from the front almost always, and they allocate in blocks
  // rather than per entry.
  std::deque<RequestPtr> posted_;
  std::deque<MessagePtr> unexpected_;
};

inline bool matches(int src_filter, int tag_filter, int src, int tag) {
  return (src_filter < 0 || src_filter == src) && (tag_filter < 0 || tag_filter == tag);
}

template <typename Pred>
std::vector<Matcher::RequestPtr> Matcher::take_posted_if(Pred pred) {
  std::vector<RequestPtr> out;
  for (auto it = posted_.begin(); it != posted_.end();) {
    if (pred(**it)) {
      out.push_back(*it);
      it = posted_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace weft::p2p

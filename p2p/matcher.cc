#include "p2p/matcher.h"

#include <limits>

namespace weft::p2p {
namespace {

// The index of the first entry of `queue` whose tag matches `tag_filter` (size() if none).
template <typename T, typename TagOf>
size_t first_with_tag(const RingQueue<T>& queue, int tag_filter, TagOf tag_of) {
  if (tag_filter < 0) return 0;
  size_t i = 0;
  while (i < queue.size() && tag_of(queue[i]) != tag_filter) ++i;
  return i;
}

}  // namespace

RingQueue<RequestState*>& Matcher::new_posted_queue(int src) {
  posted_.resize(src + 1);
  return posted_[src];
}

RequestState* Matcher::take_first_posted(int src, int tag) {
  // A posted receive's tag filter is -1 (any) or a tag.
  auto first = [tag](const RingQueue<RequestState*>& queue) {
    size_t i = 0;
    while (i < queue.size() && queue[i]->tag >= 0 && queue[i]->tag != tag) ++i;
    return i;
  };
  RingQueue<RequestState*>* named =
      src >= 0 && static_cast<size_t>(src) < posted_.size() ? &posted_[src] : nullptr;
  size_t n = named ? first(*named) : 0;
  size_t a = first(posted_any_);
  const bool in_named = named && n < named->size();
  const bool in_any = a < posted_any_.size();
  if (!in_named && !in_any) return nullptr;
  if (in_named && (!in_any || (*named)[n]->posted < posted_any_[a]->posted)) {
    return taken(named->take(n));
  }
  return taken(posted_any_.take(a));
}

void Matcher::add_unexpected(MessagePtr message) {
  const int src = message->header.src;
  if (static_cast<size_t>(src) >= unexpected_.size()) unexpected_.resize(src + 1);
  message->arrival = next_arrival_++;
  unexpected_[src].push_back(std::move(message));
  ++unexpected_count_;
}

Matcher::Found Matcher::first_unexpected(int src_filter, int tag_filter) const {
  auto tag_of = [](const MessagePtr& m) { return m->header.tag; };
  Found found;
  if (unexpected_count_ == 0) return found;
  if (src_filter >= 0) {
    if (static_cast<size_t>(src_filter) >= unexpected_.size()) return found;
    size_t i = first_with_tag(unexpected_[src_filter], tag_filter, tag_of);
    if (i < unexpected_[src_filter].size()) found = {src_filter, i};
    return found;
  }
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  for (size_t src = 0; src < unexpected_.size(); ++src) {
    const RingQueue<MessagePtr>& q = unexpected_[src];
    if (q.empty()) continue;
    size_t i = first_with_tag(q, tag_filter, tag_of);
    if (i < q.size() && q[i]->arrival < earliest) {
      earliest = q[i]->arrival;
      found = {static_cast<int>(src), i};
    }
  }
  return found;
}

Matcher::MessagePtr Matcher::take_first_unexpected(int src_filter, int tag_filter) {
  Found found = first_unexpected(src_filter, tag_filter);
  if (found.src < 0) return nullptr;
  --unexpected_count_;
  return unexpected_[found.src].take(found.index);
}

const UnexpectedMessage* Matcher::find_unexpected(int src_filter, int tag_filter) const {
  Found found = first_unexpected(src_filter, tag_filter);
  return found.src < 0 ? nullptr : unexpected_[found.src][found.index].get();
}

bool Matcher::remove_posted(RequestState* recv) {
  // A receive's queue is the one of its source filter, which is still its peer field
  // while it is posted (matching is what fills in the actual source).
  auto& queue = recv->peer < 0                                     ? posted_any_
                : static_cast<size_t>(recv->peer) < posted_.size() ? posted_[recv->peer]
                                                                   : posted_any_;
  for (size_t i = 0; i < queue.size(); ++i) {
    if (queue[i] == recv) {
      taken(queue.take(i));
      return true;
    }
  }
  return false;
}

}  // namespace weft::p2p

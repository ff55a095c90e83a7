#include "p2p/matcher.h"

namespace weft::p2p {

Matcher::RequestPtr Matcher::take_posted(int src, int tag) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (matches((*it)->peer, (*it)->tag, src, tag)) {
      RequestPtr recv = std::move(*it);
      if (it == posted_.begin()) {
        posted_.pop_front();
      } else {
        posted_.erase(it);
      }
      return recv;
    }
  }
  return nullptr;
}

std::deque<Matcher::MessagePtr>::const_iterator Matcher::first_unexpected(int src_filter,
                                                                          int tag_filter) const {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (matches(src_filter, tag_filter, (*it)->header.src, (*it)->header.tag)) return it;
  }
  return unexpected_.end();
}

Matcher::MessagePtr Matcher::take_unexpected(int src_filter, int tag_filter) {
  auto it = first_unexpected(src_filter, tag_filter);
  if (it == unexpected_.end()) return nullptr;
  MessagePtr message = *it;
  if (it == unexpected_.begin()) {
    unexpected_.pop_front();
  } else {
    unexpected_.erase(it);
  }
  return message;
}

const UnexpectedMessage* Matcher::find_unexpected(int src_filter, int tag_filter) const {
  auto it = first_unexpected(src_filter, tag_filter);
  return it == unexpected_.end() ? nullptr : it->get();
}

bool Matcher::remove_posted(const p2p::RequestState* recv) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->get() == recv) {
      posted_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace weft::p2p

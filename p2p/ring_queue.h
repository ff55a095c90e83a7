// RingQueue: a FIFO in one growable circular buffer. Matching queues take from the
// front and add at the back on every message; std::deque frees and allocates a block
// every few dozen of those, this reuses its storage, so a steady exchange of messages
// allocates nothing. Removal from the middle (a withdrawn receive, a wildcard match)
// shifts the entries behind it.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace weft::p2p {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // The i-th entry from the front.
  T& operator[](size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  const T& operator[](size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    (*this)[size_] = std::move(value);
    ++size_;
  }

  // Removes and returns the first entry.
  T take_front() {
    T out = std::move(front());
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return out;
  }

  // Removes and returns the i-th entry, keeping the others in order.
  T take(size_t i) {
    if (i == 0) return take_front();
    T out = std::move((*this)[i]);
    for (size_t j = i; j + 1 < size_; ++j) (*this)[j] = std::move((*this)[j + 1]);
    (*this)[size_ - 1] = T();
    --size_;
    return out;
  }

  // Removes the entries for which `pred` is true, keeping the others in order.
  template <typename Pred>
  void erase_if(Pred pred) {
    size_t kept = 0;
    for (size_t i = 0; i < size_; ++i) {
      if (pred((*this)[i])) continue;
      if (kept != i) (*this)[kept] = std::move((*this)[i]);
      ++kept;
    }
    for (size_t i = kept; i < size_; ++i) (*this)[i] = T();
    size_ = kept;
  }

 private:
  // Doubles the capacity (a power of two, so that an index wraps with a mask).
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace weft::p2p

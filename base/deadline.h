// Deadline: a point on the steady clock by which a blocking step must finish.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>

namespace weft::base {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  static Deadline after(std::chrono::milliseconds duration) {
    return Deadline(Clock::now() + duration);
  }
  static Deadline never() { return Deadline(Clock::time_point::max()); }

  bool expired() const { return Clock::now() >= when_; }
  bool is_never() const { return when_ == Clock::time_point::max(); }
  Clock::time_point when() const { return when_; }

  std::chrono::milliseconds remaining() const {
    if (is_never()) return std::chrono::milliseconds::max();
    auto left = std::chrono::ceil<std::chrono::milliseconds>(when_ - Clock::now());
    return std::max(left, std::chrono::milliseconds(0));
  }

  // The remaining time as a poll()/epoll_wait() timeout, at most cap_ms.
  int poll_ms(int cap_ms = INT_MAX) const {
    if (is_never()) return cap_ms;
    auto left = remaining().count();
    return static_cast<int>(std::min<long long>(left, cap_ms));
  }

  // The earlier of two deadlines.
  Deadline min(Deadline other) const { return when_ <= other.when_ ? *this : other; }

 private:
  explicit Deadline(Clock::time_point when) : when_(when) {}
  Clock::time_point when_;
};

}  // namespace weft::base

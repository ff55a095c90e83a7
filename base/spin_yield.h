// SpinYield: how a busy-waiting rank gives up its core now and then (p2p::Engine's
// waits, the shared-memory arena's). The peer it waits for may be runnable on this very
// core: the scheduler places a task that a socket wakes next to the one that woke it,
// so after one of two ranks has slept, both can end up on one core while the other
// idles. Spinning on, a rank then kept its peer from running for its whole spin
// (WEFT_SPIN_US, 1 ms), and every message of the exchange cost that much until the load
// balancer parted them (docs/BENCHMARKS.md, "The slowest calls"). So a spin that has
// lasted kInterval yields (sched_yield), and again each kInterval after; with nothing
// else runnable, the yield returns at once, and a message that comes sooner never
// reaches it.
#pragma once

#include <sched.h>

#include <chrono>

namespace weft::base {

class SpinYield {
 public:
  static constexpr std::chrono::microseconds kInterval{20};
  using Clock = std::chrono::steady_clock;

  // The spin began at `now`.
  void start(Clock::time_point now) { next_ = now + kInterval; }
  // Called with the clock as the spin goes on: yields once kInterval has passed since
  // the start or the last yield.
  void at(Clock::time_point now) {
    if (now < next_) return;
    sched_yield();
    next_ = now + kInterval;
  }

 private:
  Clock::time_point next_;
};

}  // namespace weft::base

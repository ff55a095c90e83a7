// Engine, progress: polling links for waiting callers and for the progress thread.
#include <sched.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <optional>

#include "base/spin_yield.h"
#include "p2p/engine.h"
#include "weft/error.h"

namespace weft::p2p {
namespace {

constexpr int kMaxEvents = 64;
// A sleeping waiter re-checks at least this often, for completions that happen without
// any socket activity it could see (another thread matching a message to itself).
constexpr int kSleepSliceMs = 10;
// The progress thread leaves the links alone while callers have polled them within
// this interval: the caller is between two weft calls, not computing. While they keep
// polling, the interval doubles up to kProgressGraceMax: a program streaming small
// messages would otherwise wake the thread 5,000 times a second, and where the ranks
// fill the cores each wake-up preempts one of them (8-byte streams on 2 cores ran 17%
// faster without them; docs/BENCHMARKS.md, "The sustained message rate").
constexpr auto kProgressGrace = std::chrono::microseconds(200);
constexpr auto kProgressGraceMax = std::chrono::microseconds(3200);
// A spinning waiter reads the clock once per this many polls; each poll is a system
// call already, so the deadline is still checked every few microseconds.
constexpr unsigned kPollsPerClockRead = 8;
// With only busy-polled links a poll costs nanoseconds, not a system call; epoll (which
// then only reports doorbells and dead peers) is asked once per this many polls.
constexpr unsigned kBusyPollsPerEpoll = 256;
// A caller waiting on one shared-memory peer polls that peer's link, and every
// busy-polled link once per this many polls: the others carry credits, clear-to-sends
// and the failures other requests wait for, so they must not starve, but a poll of each
// is a cache miss the awaited message does not need.
constexpr unsigned kPollsPerOtherLinks = 16;

}  // namespace

using p2p::OpKind;
using p2p::OpStage;
using p2p::RequestState;

void Engine::poll_busy_links() {
  for (Peer* p : busy_links_) {
    if (p->failure) continue;
    if (p->shm) {
      p->shm->progress(*this);
    } else {
      p->link->progress();
    }
  }
}

void Engine::poll_links(bool check_fds) {
  poll_busy_links();
  if (!check_fds) return;
  epoll_event events[kMaxEvents];
  int n = epoll_wait(epoll_fd_, events, kMaxEvents, 0);
  for (int i = 0; i < n; ++i) {
    if (events[i].data.ptr == nullptr) continue;  // the waiter bell: its sleeper clears it
    if (events[i].data.ptr == &lazy_bell_tag_) {
      adopt_dialed();  // connections peers dialed (lazy connections)
      continue;
    }
    Peer& p = *static_cast<Peer*>(events[i].data.ptr);
    if (!p.link || p.failure) continue;
    p.link->service_fd();
    watch_output(p);
  }
}

void Engine::poll_for_caller(int peer, unsigned iteration) {
  note_caller_activity();
  // Never on the first poll of a wait: most waits end within a few polls, and epoll is
  // a system call (measured: 0.51 against 0.38 us per 8-byte shared-memory ping-pong).
  bool epoll_now =
      has_fd_links_ ? iteration % 8 == 7 : iteration % kBusyPollsPerEpoll == kBusyPollsPerEpoll - 1;
  if (peer >= 0 && peer != rank_ && !epoll_now) {
    Peer& p = peers_[peer];
    if (p.link && !p.failure) {
      if (p.link->busy_polled()) {
        if (iteration % kPollsPerOtherLinks == kPollsPerOtherLinks - 1) {
          poll_busy_links();
        } else {
          p.link->progress();
        }
        return;
      }
      p.link->progress();
      watch_output(p);
      return;
    }
  }
  poll_links(has_fd_links_ || epoll_now);
}

bool Engine::prepare_busy_links_to_sleep() {
  bool sleep = true;
  for (Peer* p : busy_links_) {
    if (!p->failure && !p->link->prepare_to_sleep()) sleep = false;
  }
  return sleep;
}

void Engine::wake_busy_links() {
  for (Peer* p : busy_links_) {
    if (!p->failure) p->link->woke_up();
  }
}

int Engine::sleep_in_epoll(epoll_event* events, int max_events, int timeout_ms) {
  {
    std::lock_guard<base::FutexMutex> lock(mutex_);
    if (!prepare_busy_links_to_sleep()) {
      wake_busy_links();
      return -1;
    }
  }
  int n = epoll_wait(epoll_fd_, events, max_events, timeout_ms);
  std::lock_guard<base::FutexMutex> lock(mutex_);
  wake_busy_links();
  return n;
}

bool Engine::sleep_as_waiter(std::unique_lock<base::FutexMutex>& lock, int timeout_ms,
                             uint64_t seen_completions) {
  auto completed = [&] { return completions_ != seen_completions; };
  if (completed()) return false;
  if (waiter_in_epoll_) {
    ++followers_;
    followers_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                           [&] { return completed() || !waiter_in_epoll_; });
    --followers_;
    return false;
  }
  if (!prepare_busy_links_to_sleep()) {
    wake_busy_links();
    return true;
  }
  waiter_in_epoll_ = true;
  lock.unlock();
  epoll_event event;
  int n = epoll_wait(epoll_fd_, &event, 1, timeout_ms);
  lock.lock();
  waiter_in_epoll_ = false;
  wake_busy_links();
  if (bell_rung_) {
    uint64_t rings;
    if (::read(waiter_bell_, &rings, sizeof rings) < 0) {
      // EAGAIN: nothing to clear after all.
    }
    bell_rung_ = false;
  }
  if (followers_ > 0) followers_cv_.notify_all();  // one of them sleeps in epoll next
  return n != 0;
}

bool Engine::test(RequestState& request) {
  if (request.done.load(std::memory_order_acquire)) return true;
  std::unique_lock<base::FutexMutex> lock(mutex_, std::try_to_lock);
  // A counter rather than iteration 0, so that a loop of tests polls the other links
  // and epoll too, as a wait does.
  if (lock.owns_lock()) poll_for_caller(request.peer_world, test_polls_++);
  return request.done.load(std::memory_order_acquire);
}

void Engine::wait(RequestState& request, Timeout timeout) {
  RequestState* one[] = {&request};
  wait_any(one, timeout);
  if (request.error) std::rethrow_exception(request.error);
}

template <typename Step, typename Expire, typename Done>
void Engine::poll_until(Timeout timeout, Step step, Expire expire, Done done) {
  blocking_waiters_.fetch_add(1);
  struct Leave {
    Engine* e;
    ~Leave() {
      if (e->blocking_waiters_.fetch_sub(1) == 1 && e->async_outstanding_.load() > 0) {
        // The progress thread is needed again; wake it under the lock so that the
        // wake-up cannot slip between its predicate check and its sleep.
        std::lock_guard<base::FutexMutex> lock(e->mutex_);
        e->progress_cv_.notify_one();
      }
    }
  } leave{this};
  // The clock is read only once the first poll has not ended the wait: a request that
  // completes at once (the common case for small messages) never pays.
  std::optional<base::Deadline> deadline;
  base::Deadline::Clock::time_point spin_until;
  base::SpinYield yielder;
  bool spinning = true;
  bool crowded = false;
  uint64_t seen_completions = 0;
  for (unsigned iteration = 0;; ++iteration) {
    {
      // One thread polls at a time; the others watch their own flag meanwhile, since the
      // poller completes their requests as well (the first poll queues for the lock, so
      // that seen_completions is read once).
      std::unique_lock<base::FutexMutex> lock(mutex_, std::defer_lock);
      if (iteration == 0 || !spinning) {
        lock.lock();
      } else if (!lock.try_lock()) {
        if (done()) return;
      }
      if (lock.owns_lock()) {
        if (step(iteration)) return;
        seen_completions = completions_;
      }
    }
    if (!deadline) {
      deadline = base::Deadline::after(timeout);
      crowded = options_.oversubscribed ||
                blocking_waiters_.load() * options_.local_ranks > options_.cores;
      // One clock read, not two.
      const auto start = deadline->when() - timeout;
      spin_until =
          start + (crowded && !options_.oversubscribed ? options_.crowded_spin : options_.spin);
      yielder.start(start);
      continue;  // neither expired nor done spinning yet
    }
    if (spinning && iteration % kPollsPerClockRead != 0) continue;
    const auto now = base::Deadline::Clock::now();
    if (now >= deadline->when()) {
      std::lock_guard<base::FutexMutex> lock(mutex_);
      if (expire()) return;
    }
    if (spinning && now < spin_until) {
      // Ranks (or waiting threads) outnumber cores, or the one we wait for may share
      // this core (base/spin_yield.h): let it run.
      if (crowded) {
        sched_yield();
      } else {
        yielder.at(now);
      }
      continue;
    }
    spinning = false;
    std::unique_lock<base::FutexMutex> lock(mutex_);
    if (sleep_as_waiter(lock, deadline->poll_ms(kSleepSliceMs), seen_completions)) {
      // Reads the doorbell (so that the next sleep can begin), or the work that came.
      poll_links();
    }
  }
}

void Engine::wait_any(std::span<RequestState* const> requests, Timeout timeout) {
  auto any_done = [&] {
    for (RequestState* r : requests) {
      if (r->done.load(std::memory_order_acquire)) return true;
    }
    return false;
  };
  if (requests.empty() || any_done()) return;
  // Direct polling of one peer's link pays off when there is one request to wait for;
  // its peer is read each time, since an any-source receive learns it once matched.
  const RequestState* hint = requests.size() == 1 ? requests[0] : nullptr;
  poll_until(
      timeout,
      [&](unsigned iteration) {
        poll_for_caller(hint ? hint->peer_world : -1, iteration);
        return any_done();
      },
      [&] {
        if (any_done()) return true;
        std::string what = requests[0]->describe() + ": not completed before the deadline; " +
                           pending_state(*requests[0]);
        if (requests.size() > 1) {
          what += " (and " + std::to_string(requests.size() - 1) + " more operations pending)";
        }
        const int peer = requests[0]->peer_world;
        if (peer >= 0 && peer != rank_) what += "; waiting for " + peer_name(peer);
        throw TimeoutError(what);
      },
      any_done);
}

void Engine::note_timed_out_waiting_for(int world_peer) {
  if (world_peer < 0 || world_peer >= world_size() || world_peer == rank_) return;
  if (!silence_observer_ || silence_reported_.exchange(true)) return;
  try {
    silence_observer_(world_peer);
  } catch (const std::exception& e) {
    // The timeout itself is what the caller must hear about.
    WEFT_LOG(INFO) << "could not report the timeout waiting for " << peer_name(world_peer) << ": "
                   << e.what();
  }
}

ProbeResult Engine::probe(const p2p::GroupState& group, int src, int tag, Timeout timeout) {
  const int world_peer = src < 0 ? -1 : group.world_ranks[src];
  uint64_t crashes_before = 0;
  std::optional<ProbeResult> found;
  poll_until(
      timeout,
      [&](unsigned iteration) {
        // Crashes seen from here on are ones the probe waited through.
        if (iteration == 0) crashes_before = crashes_;
        poll_for_caller(world_peer, iteration);
        found = probed("probe", group, src, tag, crashes_before);
        return found.has_value();
      },
      [&] {
        // Something may have arrived through another thread's progress since.
        found = probed("probe", group, src, tag, crashes_before);
        if (found) return true;
        throw TimeoutError(p2p::describe_probe("probe", group, src, tag) +
                           ": no matching message has arrived before the deadline (timeout " +
                           std::to_string(timeout.count()) + " ms)");
      },
      [] { return false; });
  return *found;
}

std::shared_ptr<UnexpectedMessage> Engine::claim(const p2p::GroupState& group, int src, int tag,
                                                 Timeout timeout) {
  const int world_peer = src < 0 ? -1 : group.world_ranks[src];
  uint64_t crashes_before = 0;
  std::shared_ptr<UnexpectedMessage> claimed;
  // probed() finds exactly the message take_unexpected() takes, and reports the errors.
  auto take = [&] {
    if (probed("mprobe", group, src, tag, crashes_before)) {
      claimed = matcher(group.comm).take_unexpected(src, tag);
    }
    return claimed != nullptr;
  };
  poll_until(
      timeout,
      [&](unsigned iteration) {
        if (iteration == 0) crashes_before = crashes_;
        poll_for_caller(world_peer, iteration);
        return take();
      },
      [&] {
        if (take()) return true;
        throw TimeoutError(p2p::describe_probe("mprobe", group, src, tag) +
                           ": no matching message has arrived before the deadline (timeout " +
                           std::to_string(timeout.count()) + " ms)");
      },
      [] { return false; });
  return claimed;
}

std::string Engine::pending_state(const RequestState& r) {
  if (r.done) return "completed";
  if (r.kind == OpKind::kRecv) {
    if (r.stage == OpStage::kPosted) return "no matching message has arrived";
    return "the message from rank " + std::to_string(r.peer) + " is arriving (" +
           std::to_string(r.received) + " of " + std::to_string(r.bytes) + " bytes)";
  }
  switch (r.stage) {
    case OpStage::kEagerQueued:
      return "the message is still being written to " + peer_name(r.peer_world);
    case OpStage::kAwaitingCts:
      return peer_name(r.peer_world) + " has not posted a matching receive";
    case OpStage::kStreaming:
      return "the payload is still being written to " + peer_name(r.peer_world);
    default:
      return "not yet started";
  }
}

void Engine::progress_loop() {
  epoll_event events[kMaxEvents];
  auto grace = kProgressGrace;
  while (true) {
    {
      std::unique_lock<base::FutexMutex> lock(mutex_);
      progress_cv_.wait(
          lock, [this] { return stopping_ || (async_outstanding_ > 0 && blocking_waiters_ == 0); });
      if (stopping_) return;
    }
    uint64_t activity = caller_activity_.load(std::memory_order_relaxed);
    std::this_thread::sleep_for(grace);
    if (caller_activity_.load(std::memory_order_relaxed) != activity) {
      grace = std::min(grace * 2, kProgressGraceMax);
      continue;
    }
    grace = kProgressGrace;
    // Sleep until some link is ready, without the lock, then service it with the lock.
    if (sleep_in_epoll(events, kMaxEvents, kSleepSliceMs) != 0 || !busy_links_.empty()) {
      std::lock_guard<base::FutexMutex> lock(mutex_);
      poll_links();
    }
  }
}

}  // namespace weft::p2p

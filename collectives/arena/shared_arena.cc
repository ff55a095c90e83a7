#include "collectives/arena/shared_arena.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

#include "base/failure.h"
#include "base/spin_yield.h"
#include "p2p/engine.h"
#include "weft/error.h"

namespace weft::collectives {

// One member's control block: a line of counters, and one stage line per parity. All
// of it is written by that member only.
struct alignas(64) SharedArena::StageLine {
  std::atomic<uint32_t> round;   // the last round of this parity the member published
  uint32_t shape;                // that round's call's signature: the shape hash
  uint64_t stamp;                // and its stamp
  std::byte data[kInlineBytes];  // that round's data, when it is this small
};
struct alignas(ArenaLayout::kControlBytes) SharedArena::Control {
  alignas(64) std::atomic<uint32_t> reduced;  // sliced all_reduce: last round whose slice is done
  std::atomic<uint32_t> consumed;             // the last round this member finished reading
  std::atomic<uint32_t> failed;               // an ArenaFailure: this member gave up
  std::atomic<uint32_t> sleepers;             // members sleeping on one of its counters
  // kPeer: the world rank whose failure it saw; kTimeout: the one it waited for; kDesync:
  // the one whose call differed from the finder's (-1: not known).
  int32_t culprit;
  int32_t desync_finder;      // kDesync: the world rank that found it (this one, or another)
  uint64_t desync_stamps[2];  // kDesync: the culprit's call and the finder's
  StageLine stage[2];
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

namespace {

struct Header {
  uint64_t magic;
  uint64_t members;
  uint64_t buffer_bytes;
};

// Wrap-safe: whether counter value `value` has reached `target`.
bool reached(uint32_t value, uint32_t target) { return static_cast<int32_t>(value - target) >= 0; }

void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, long timeout_ns) {
  timespec t{0, timeout_ns};
  // Shared (not FUTEX_PRIVATE): the word lives in a mapping of several processes.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, expected, &t, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr,
          0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

constexpr long kSleepSliceNs = 1'000'000;  // futex sleeps; liveness is checked after each
constexpr unsigned kSpinsPerCheck = 1024;  // spins between checks of flags and the clock
constexpr unsigned kSpinsPerYield = 32;    // oversubscribed: spins between yields

}  // namespace

SharedArena::SharedArena(transport::shm::Segment segment, ArenaLayout layout, int member,
                         std::vector<int> world_ranks, Options options)
    : segment_(std::move(segment)),
      layout_(layout),
      member_(member),
      world_ranks_(std::move(world_ranks)),
      options_(options),
      known_consumed_(layout.members, 0) {}

SharedArena::~SharedArena() = default;

void SharedArena::initialize_header(std::byte* base, const ArenaLayout& layout) {
  Header h{ArenaLayout::kMagic, static_cast<uint64_t>(layout.members), layout.buffer_bytes};
  std::memcpy(base, &h, sizeof h);
}

void SharedArena::check_header(const std::byte* base, const ArenaLayout& layout,
                               const std::string& name) {
  Header h;
  std::memcpy(&h, base, sizeof h);
  if (h.magic != ArenaLayout::kMagic || h.members != static_cast<uint64_t>(layout.members) ||
      h.buffer_bytes != layout.buffer_bytes) {
    throw Error(ErrorCode::kInternal, "shared-memory segment " + name +
                                          " is not the collective arena this group expects (" +
                                          std::to_string(layout.members) + " members, " +
                                          std::to_string(layout.buffer_bytes) + "-byte buffers)");
  }
}

SharedArena::Control& SharedArena::control(int member) const {
  static_assert(sizeof(Control) <= ArenaLayout::kControlBytes);
  static_assert(sizeof(StageLine) == 64);
  // Each block at an address its type's alignment allows (UBSan checks it).
  static_assert(ArenaLayout::kHeaderBytes % alignof(Control) == 0);
  static_assert(ArenaLayout::kControlBytes % alignof(Control) == 0);
  return *reinterpret_cast<Control*>(segment_.data() + layout_.control_offset(member));
}

// ---- turns ----

SharedArena::Turn::Turn(SharedArena& arena, uint32_t tag, std::chrono::milliseconds timeout)
    : arena_(&arena) {
  auto mine = [&] {
    return (arena.next_tag_.load(std::memory_order_acquire) & 0x7fffffffu) == tag;
  };
  if (mine()) [[likely]]
    return;
  std::unique_lock<std::mutex> lock(arena.turn_mutex_);
  // seq_cst with release()'s increment and load: either it sees this waiter, or this
  // sees its new tag.
  arena.turn_waiters_.fetch_add(1, std::memory_order_seq_cst);
  bool got = arena.turn_cv_.wait_for(lock, timeout, mine);
  arena.turn_waiters_.fetch_sub(1, std::memory_order_seq_cst);
  if (!got) {
    held_ = false;
    throw TimeoutError("an earlier collective of this group (call " +
                       std::to_string(arena.next_tag_.load()) +
                       ") is still running in this process");
  }
}

void SharedArena::Turn::release() {
  if (!held_) return;
  held_ = false;
  arena_->next_tag_.fetch_add(1, std::memory_order_seq_cst);
  if (arena_->turn_waiters_.load(std::memory_order_seq_cst) > 0) [[unlikely]] {
    // Taking the mutex orders this after a waiter's check, before its sleep.
    { std::lock_guard<std::mutex> lock(arena_->turn_mutex_); }
    arena_->turn_cv_.notify_all();
  }
}

// ---- failures ----

void SharedArena::throw_if_broken() const {
  if (!broken_.load(std::memory_order_acquire)) [[likely]]
    return;
  std::lock_guard<std::mutex> lock(failure_mutex_);
  throw Error(ErrorCode::kState,
              "the shared-memory collectives of this group stopped after an earlier failure: " +
                  broken_reason_);
}

void SharedArena::mark_failed(const std::exception& e) {
  const base::Failure failure = base::failure_of(e);
  ArenaFailure kind = failure.code() == ErrorCode::kDesync    ? ArenaFailure::kDesync
                      : failure.code() == ErrorCode::kTimeout ? ArenaFailure::kTimeout
                      : failure.code() == ErrorCode::kPeer    ? ArenaFailure::kPeer
                                                              : ArenaFailure::kOther;
  const int culprit = kind == ArenaFailure::kTimeout
                          ? timed_out_waiting_for_.load(std::memory_order_relaxed)
                          : failure.peer();
  {
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (broken_.load(std::memory_order_relaxed)) return;
    broken_reason_ = e.what();
    broken_.store(true, std::memory_order_release);
  }
  Control& mine = control(member_);
  mine.culprit = culprit;  // published by the store of `failed`
  if (kind == ArenaFailure::kDesync && desync_seen_.culprit >= 0) {
    mine.culprit = desync_seen_.culprit;
    mine.desync_finder = desync_seen_.finder;
    mine.desync_stamps[0] = desync_seen_.culprit_stamp;
    mine.desync_stamps[1] = desync_seen_.finder_stamp;
  }
  mine.failed.store(static_cast<uint32_t>(kind), std::memory_order_seq_cst);
  // Whoever sleeps on one of this member's counters wakes to see the flag.
  futex_wake_all(mine.stage[0].round);
  futex_wake_all(mine.stage[1].round);
  futex_wake_all(mine.reduced);
  futex_wake_all(mine.consumed);
}

// ---- rounds ----

void SharedArena::publish(std::atomic<uint32_t>& counter, uint32_t value, Control& mine) {
  // A release store, not seq_cst: a full fence here would stall every round on taking
  // the line back from the members spinning on it. The price is that the load of
  // sleepers below may run before the store is visible, so a member that goes to sleep
  // at that very moment can miss this wake-up; it then wakes after its time slice
  // (kSleepSliceNs) instead, never later.
  counter.store(value, std::memory_order_release);
  if (mine.sleepers.load(std::memory_order_relaxed) != 0) [[unlikely]]
    futex_wake_all(counter);
}

uint32_t SharedArena::begin_round(Call& call) {
  const uint32_t round = ++round_;
  for (int m = 0; m < layout_.members; ++m) {
    if (m == member_ || reached(known_consumed_[m], round - 2)) continue;
    wait_for(call, m, control(m).consumed, round - 2, "finish the previous round");
    known_consumed_[m] = control(m).consumed.load(std::memory_order_relaxed);
  }
  return round;
}

void SharedArena::publish_staged(Call& call, uint32_t round) {
  Control& mine = control(member_);
  StageLine& line = mine.stage[round & 1u];
  line.shape = call.signature.shape;
  line.stamp = call.signature.stamp;
  publish(line.round, round, mine);
}

void SharedArena::publish_reduced(uint32_t round) {
  Control& mine = control(member_);
  publish(mine.reduced, round, mine);
}

void SharedArena::consume(uint32_t round) {
  Control& mine = control(member_);
  publish(mine.consumed, round, mine);
}

void SharedArena::wait_staged(Call& call, int member, uint32_t round) {
  Control& theirs = control(member);
  StageLine& line = theirs.stage[round & 1u];
  if (!reached(line.round.load(std::memory_order_acquire), round)) {
    wait_for(call, member, line.round, round, "reach this collective");
  }
  // A member publishes round r only after it has consumed r - 1: this spares begin_round a
  // look at its counters (another cache line) in the next round.
  if (!reached(known_consumed_[member], round - 1)) known_consumed_[member] = round - 1;
  const Signature published{line.stamp, line.shape};
  if (published != call.signature) [[unlikely]]
    throw_desync(call, member, published);
}

void SharedArena::throw_desync(Call& call, int member, const Signature& theirs) {
  const int world_rank = world_ranks_[member];
  desync_seen_ = {world_ranks_[member_], world_rank, theirs.stamp, call.signature.stamp};
  throw DesyncError(call.engine->disagreement(call.engine->peer_name(world_rank), theirs.stamp,
                                              "this rank", call.signature.stamp));
}

void SharedArena::wait_reduced(Call& call, int member, uint32_t round) {
  Control& theirs = control(member);
  if (!reached(theirs.reduced.load(std::memory_order_acquire), round)) {
    wait_for(call, member, theirs.reduced, round, "reduce its slice");
  }
}

void SharedArena::wait_for(Call& call, int member, std::atomic<uint32_t>& word, uint32_t round,
                           const char* what) {
  Control& theirs = control(member);
  // Oversubscribed, the member waited for may need this core: yield it after a short
  // spin instead of a long one.
  const unsigned spins = options_.oversubscribed ? kSpinsPerYield : kSpinsPerCheck;
  std::optional<std::chrono::steady_clock::time_point> spin_until;
  base::SpinYield yielder;
  while (true) {
    for (unsigned i = 0; i < spins; ++i) {
      if (reached(word.load(std::memory_order_acquire), round)) return;
      cpu_relax();
    }
    // While spinning, only what costs no system call: the others' failure flags and the
    // clock (read through the vDSO). The engine's links are polled once the spin is over.
    auto now = std::chrono::steady_clock::now();
    if (!spin_until) {
      spin_until = now + options_.spin;
      yielder.start(now);
    }
    try {
      check_flags(call, now, round, member, what);
      if (now < *spin_until) {
        // Oversubscribed, or after a while (base/spin_yield.h): giving the core to the
        // member we wait for is the point, as sleeping is once the spin is over.
        if (options_.oversubscribed) {
          sched_yield();
        } else {
          yielder.at(now);
        }
        continue;
      }
      check_links(call, member);
    } catch (const Error&) {
      // A member that published and then left the job (it had nothing more to do in this
      // collective) is not a failure of this wait.
      if (reached(word.load(std::memory_order_acquire), round)) return;
      throw;
    }
    // Sleep until the member publishes (or 1 ms passes, to check liveness again).
    theirs.sleepers.fetch_add(1, std::memory_order_seq_cst);
    uint32_t seen = word.load(std::memory_order_seq_cst);
    if (!reached(seen, round) && theirs.failed.load(std::memory_order_relaxed) == 0) {
      futex_wait(word, seen, kSleepSliceNs);
    }
    theirs.sleepers.fetch_sub(1, std::memory_order_seq_cst);
    if (reached(word.load(std::memory_order_acquire), round)) return;
  }
}

void SharedArena::check_flags(Call& call, std::chrono::steady_clock::time_point now, uint32_t round,
                              int waiting_for, const char* what) {
  // The others' flags first: a member that gave up recorded why (the rank whose death
  // it saw, say) before it went, and its own exit is then only a consequence.
  for (int m = 0; m < layout_.members; ++m) {
    const Control& theirs = control(m);
    auto failed = static_cast<ArenaFailure>(theirs.failed.load(std::memory_order_acquire));
    if (m == member_ || failed == ArenaFailure::kNone) continue;
    const std::string who =
        "rank " + std::to_string(world_ranks_[m]) + " gave up on a collective of this group";
    switch (failed) {
      case ArenaFailure::kDesync: {
        // Passed on as it was found (by this member or by another that it learnt from),
        // so that every member names the same two calls.
        const DesyncSeen seen{theirs.desync_finder, theirs.culprit, theirs.desync_stamps[0],
                              theirs.desync_stamps[1]};
        if (seen.culprit < 0 || seen.finder < 0) {
          throw DesyncError(who + ": it found that the ranks disagree about this collective");
        }
        desync_seen_ = seen;
        throw DesyncError(call.engine->found_disagreement(seen.finder, seen.culprit,
                                                          seen.culprit_stamp, seen.finder_stamp));
      }
      case ArenaFailure::kTimeout:
        if (theirs.culprit >= 0 && theirs.culprit < call.engine->world_size()) {
          // This member was waiting on the same round: it waited for that rank too.
          call.engine->note_timed_out_waiting_for(theirs.culprit);
          throw TimeoutError(who + ": it timed out waiting for " +
                             call.engine->peer_name(theirs.culprit));
        }
        throw TimeoutError(who + ": it timed out waiting for another rank");
      case ArenaFailure::kPeer:
        if (theirs.culprit < 0 || theirs.culprit >= call.engine->world_size()) break;
        throw PeerError(theirs.culprit, who + ": it lost the connection to " +
                                            call.engine->peer_name(theirs.culprit));
      default:
        break;
    }
    throw Error(ErrorCode::kPeer, who + ": it failed");
  }
  if (!call.deadline) call.deadline = base::Deadline::after(call.timeout);
  if (now >= call.deadline->when()) {
    std::string missing;
    for (int m = 0; m < layout_.members; ++m) {
      if (m == member_) continue;
      if (!reached(control(m).stage[round & 1u].round.load(std::memory_order_acquire), round)) {
        missing += (missing.empty() ? "" : ", ") + call.engine->peer_name(world_ranks_[m]);
      }
    }
    const int silent = world_ranks_[waiting_for];
    timed_out_waiting_for_.store(silent, std::memory_order_relaxed);
    call.engine->note_timed_out_waiting_for(silent);
    throw TimeoutError("waited in vain for " + call.engine->peer_name(silent) + " to " + what +
                       " (shared-memory round " + std::to_string(round) + ")" +
                       (missing.empty() ? "" : "; not yet arrived: " + missing));
  }
}

void SharedArena::check_links(Call& call, int awaited) {
  // A dead member is a PeerError naming it; polling may read its socket (a system call),
  // so it is done once per sleep, not while spinning. Another member that left in good
  // order after publishing its part (a reduce's non-root) is no failure of this wait.
  call.engine->throw_if_failed(world_ranks_, world_ranks_[awaited]);
}

}  // namespace weft::collectives

namespace weft::collectives {

std::byte* SharedArena::staging(uint32_t round, uint64_t bytes) const {
  return bytes <= kInlineBytes ? control(member_).stage[round & 1u].data : buffer(member_, round);
}

const std::byte* SharedArena::staged(int member, uint32_t round, uint64_t bytes) const {
  return bytes <= kInlineBytes ? control(member).stage[round & 1u].data : buffer(member, round);
}

}  // namespace weft::collectives

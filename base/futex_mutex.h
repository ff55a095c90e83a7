// FutexMutex: a mutex whose uncontended lock and unlock are one atomic instruction each,
// inline. std::mutex calls into glibc's pthread_mutex_lock and unlock, which check the
// mutex's kind and owner first: about 60 instructions per pair, paid by every small
// message on both ranks, since the engine's lock guards each post and each poll. This
// is the three-state futex mutex of Drepper's "Futexes Are Tricky": 0 free, 1 locked,
// 2 locked with (perhaps) a sleeper, so that unlock makes a system call only when
// someone may be asleep. It meets Lockable (std::lock_guard, std::unique_lock), and
// std::condition_variable_any waits on it.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace weft::base {

class FutexMutex {
 public:
  FutexMutex() = default;
  FutexMutex(const FutexMutex&) = delete;
  FutexMutex& operator=(const FutexMutex&) = delete;

  void lock() {
    uint32_t expected = kFree;
    if (!state_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                        std::memory_order_relaxed)) [[unlikely]]
      lock_contended();
  }

  bool try_lock() {
    uint32_t expected = kFree;
    return state_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }

  void unlock() {
    if (state_.exchange(kFree, std::memory_order_release) == kContended) [[unlikely]]
      wake_one();
  }

 private:
  static constexpr uint32_t kFree = 0, kLocked = 1, kContended = 2;

  // Marks the mutex contended and sleeps until it is free. No spin first, as glibc's
  // default mutex: ranks and their progress threads often outnumber the cores, and a
  // spinning waiter would then keep the holder from running. Whoever takes the mutex
  // from here leaves it marked contended, since others may still sleep: at worst one
  // wake-up too many.
  [[gnu::noinline]] void lock_contended() {
    while (state_.exchange(kContended, std::memory_order_acquire) != kFree) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAIT_PRIVATE, kContended,
              nullptr, nullptr, 0);
    }
  }

  [[gnu::noinline]] void wake_one() {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
  }

  std::atomic<uint32_t> state_{kFree};
};

}  // namespace weft::base

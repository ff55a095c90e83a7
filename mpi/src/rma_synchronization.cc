// One-sided synchronisation: MPI_Win_fence; post, start, complete, wait and test
// (general active target); MPI_Win_lock, MPI_Win_unlock, MPI_Win_lock_all and
// MPI_Win_unlock_all (passive target); the flushes and MPI_Win_sync.
//
// Every operation is complete when its call returns (rma_operations.cc), so these calls
// order memory and keep the agreements between ranks that the epochs stand for:
//   - fence: a barrier of the window's group;
//   - post/start/complete/wait: zero-byte notices on the window's own communicator,
//     which no program's message can meet (MPI_Win_start waits for its targets' posts,
//     MPI_Win_wait for its origins' completes);
//   - locks: WindowMemory's (the target's epoch word in the window's control segment,
//     taken by the origin alone, on one host; a request to the target's service thread
//     otherwise), so a target that computes and never calls MPI grants them.
// An access outside an epoch, or a call that does not fit the epoch open, is
// MPI_ERR_RMA_SYNC.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/window_memory.h"
#include "mpi/src/windows.h"
#include "weft/collectives.h"
#include "weft/p2p.h"

using weft::mpi::MpiError;
using weft::mpi::win_call;
using weft::mpi::window_of;

namespace {

// The notices' tags on the window's communicator.
constexpr int kPostTag = 1;
constexpr int kCompleteTag = 2;

constexpr int kAllAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT | MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED;

void check_assert(int assert) {
  if ((assert & ~kAllAsserts) != 0) {
    throw MpiError(MPI_ERR_ASSERT, "assert " + std::to_string(assert) +
                                       " has bits that are not MPI_MODE_ constants of windows");
  }
}

const weft::Group& window_group(const MPI_ABI_Win& w) { return weft::mpi::comm_of(w.comm).group; }

weft::Tensor notice() {
  static std::byte none;
  return weft::Tensor(&none, 0, weft::DType::kUInt8);
}

[[noreturn]] void sync_error(const std::string& what) { throw MpiError(MPI_ERR_RMA_SYNC, what); }

bool holds_any_lock(const MPI_ABI_Win& w) {
  if (w.locked_all) return true;
  return std::any_of(w.locks_held.begin(), w.locks_held.end(),
                     [](const MPI_ABI_Win::HeldLock& l) { return l.type != 0; });
}

// The window ranks of a group's members, each of which must be in the window.
std::vector<int> window_ranks(const MPI_ABI_Win& w, MPI_Group group) {
  const MPI_ABI_Group& g = weft::mpi::group_of(group);
  const std::vector<int>& members = weft::mpi::comm_of(w.comm).world_ranks;
  std::vector<int> ranks;
  for (int world : g.world_ranks) {
    auto at = std::find(members.begin(), members.end(), world);
    if (at == members.end()) {
      throw MpiError(MPI_ERR_GROUP, "process " + std::to_string(world) +
                                        " of MPI_COMM_WORLD is in the group but not the window");
    }
    ranks.push_back(static_cast<int>(at - members.begin()));
  }
  return ranks;
}

[[noreturn, gnu::cold]] void rank_error(const MPI_ABI_Win& w, int rank) {
  throw MpiError(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in [0, " +
                                   std::to_string(w.memory->size()) + ") (the window's group)");
}

// (The errors are thrown out of line, here and in flush, so that the calls made in a
// loop, a flush after each put, carry only their tests.)
void check_rank(const MPI_ABI_Win& w, int rank) {
  if (rank < 0 || rank >= w.memory->size()) rank_error(w, rank);
}

void fence(int assert, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  check_assert(assert);
  if (holds_any_lock(w) || w.access_epoch || w.exposure_epoch) {
    sync_error("MPI_Win_fence inside a lock or post/start epoch of the window");
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  weft::barrier(window_group(w));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w.fence_epoch = (assert& MPI_MODE_NOSUCCEED) == 0;
}

void post(MPI_Group group, int assert, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  check_assert(assert);
  if (w.exposure_epoch) sync_error("MPI_Win_post while the window's exposure epoch is open");
  std::vector<int> origins = window_ranks(w, group);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w.completions.clear();
  for (int origin : origins) {
    w.completions.push_back(
        weft::irecv(notice(), weft::GroupRank{origin}, kCompleteTag, window_group(w)));
  }
  // MPI_MODE_NOCHECK: the origins know this rank is ready; they do not wait for a post.
  if ((assert& MPI_MODE_NOCHECK) == 0) {
    for (int origin : origins) {
      weft::send(notice(), weft::GroupRank{origin}, kPostTag, window_group(w));
    }
  }
  w.exposure_group = std::move(origins);
  w.exposure_epoch = true;
  w.fence_epoch = false;
}

void start(MPI_Group group, int assert, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  check_assert(assert);
  if (w.access_epoch) sync_error("MPI_Win_start while the window's access epoch is open");
  std::vector<int> targets = window_ranks(w, group);
  if ((assert& MPI_MODE_NOCHECK) == 0) {
    for (int target : targets) {
      weft::recv(notice(), weft::GroupRank{target}, kPostTag, window_group(w));
    }
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w.access_group = std::move(targets);
  w.access_epoch = true;
  w.fence_epoch = false;
}

void complete(MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  if (!w.access_epoch) sync_error("MPI_Win_complete without MPI_Win_start");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int target : w.access_group) {
    weft::send(notice(), weft::GroupRank{target}, kCompleteTag, window_group(w));
  }
  w.access_group.clear();
  w.access_epoch = false;
}

// MPI_Win_wait (wait) and MPI_Win_test: whether every origin has completed.
bool finish_exposure(MPI_Win win, bool wait) {
  MPI_ABI_Win& w = window_of(win);
  if (!w.exposure_epoch) sync_error("no MPI_Win_post opened an exposure epoch to end");
  for (const weft::Request& r : w.completions) {
    if (wait) {
      r.wait();
    } else if (!r.is_completed()) {
      return false;
    }
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w.completions.clear();
  w.exposure_group.clear();
  w.exposure_epoch = false;
  return true;
}

void lock(int type, int rank, int assert, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  check_assert(assert);
  if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE) {
    throw MpiError(MPI_ERR_LOCKTYPE, "lock_type " + std::to_string(type) +
                                         " is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
  }
  if (rank == MPI_PROC_NULL) return;
  check_rank(w, rank);
  MPI_ABI_Win::HeldLock& held = w.locks_held[static_cast<size_t>(rank)];
  if (held.type != 0 || w.locked_all) {
    sync_error("MPI_Win_lock of rank " + std::to_string(rank) + ", which this rank has locked");
  }
  held.word = (assert& MPI_MODE_NOCHECK) == 0;
  if (held.word) w.memory->lock(rank, type);
  held.type = type;
}

void unlock(int rank, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  if (rank == MPI_PROC_NULL) return;
  check_rank(w, rank);
  MPI_ABI_Win::HeldLock& held = w.locks_held[static_cast<size_t>(rank)];
  if (held.type == 0) sync_error("MPI_Win_unlock of rank " + std::to_string(rank) + ", not locked");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (held.word) w.memory->unlock(rank, held.type);
  held = MPI_ABI_Win::HeldLock{};
}

void lock_all(int assert, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  check_assert(assert);
  if (holds_any_lock(w)) sync_error("MPI_Win_lock_all while this rank holds a lock of the window");
  w.locked_all_words = (assert& MPI_MODE_NOCHECK) == 0;
  if (w.locked_all_words) {
    for (int r = 0; r < w.memory->size(); ++r) w.memory->lock(r, MPI_LOCK_SHARED);
  }
  w.locked_all = true;
}

void unlock_all(MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  if (!w.locked_all) sync_error("MPI_Win_unlock_all without MPI_Win_lock_all");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (w.locked_all_words) {
    for (int r = 0; r < w.memory->size(); ++r) w.memory->unlock(r, MPI_LOCK_SHARED);
  }
  w.locked_all = false;
  w.locked_all_words = false;
}

// The flushes: operations are complete already; what remains is ordering, in a
// passive-target epoch (rank -1: any target).
[[noreturn, gnu::cold]] void flush_outside_epoch(const char* function) {
  sync_error(std::string(function) + " outside a passive-target (lock) epoch");
}

void flush(const char* function, int rank, MPI_Win win) {
  MPI_ABI_Win& w = window_of(win);
  if (rank != -1 && rank != MPI_PROC_NULL) check_rank(w, rank);
  bool in_epoch = rank == -1 ? holds_any_lock(w)
                             : rank == MPI_PROC_NULL || w.locked_all ||
                                   w.locks_held[static_cast<size_t>(rank)].type != 0;
  if (!in_epoch) flush_outside_epoch(function);
  // The operations' stores before whatever this rank does next that others synchronise
  // with (a message, an unlock): an acquire-release fence, which costs no instruction
  // on x86, where a sequentially consistent one is an mfence per flush.
  std::atomic_thread_fence(std::memory_order_acq_rel);
}

}  // namespace

extern "C" {

int PMPI_Win_fence(int assert, MPI_Win win) {
  return win_call("MPI_Win_fence", win, [&] { fence(assert, win); });
}
WEFT_MPI_ALIAS(Win_fence)

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  return win_call("MPI_Win_post", win, [&] { post(group, assert, win); });
}
WEFT_MPI_ALIAS(Win_post)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  return win_call("MPI_Win_start", win, [&] { start(group, assert, win); });
}
WEFT_MPI_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win) {
  return win_call("MPI_Win_complete", win, [&] { complete(win); });
}
WEFT_MPI_ALIAS(Win_complete)

int PMPI_Win_wait(MPI_Win win) {
  return win_call("MPI_Win_wait", win, [&] { finish_exposure(win, true); });
}
WEFT_MPI_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int* flag) {
  return win_call("MPI_Win_test", win, [&] {
    weft::mpi::require_pointer(flag, "flag");
    *flag = finish_exposure(win, false) ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(Win_test)

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  return win_call("MPI_Win_lock", win, [&] { lock(lock_type, rank, assert, win); });
}
WEFT_MPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win) {
  return win_call("MPI_Win_unlock", win, [&] { unlock(rank, win); });
}
WEFT_MPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  return win_call("MPI_Win_lock_all", win, [&] { lock_all(assert, win); });
}
WEFT_MPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win) {
  return win_call("MPI_Win_unlock_all", win, [&] { unlock_all(win); });
}
WEFT_MPI_ALIAS(Win_unlock_all)

int PMPI_Win_flush(int rank, MPI_Win win) {
  return win_call("MPI_Win_flush", win, [&] { flush("MPI_Win_flush", rank, win); });
}
WEFT_MPI_ALIAS(Win_flush)

int PMPI_Win_flush_local(int rank, MPI_Win win) {
  return win_call("MPI_Win_flush_local", win, [&] { flush("MPI_Win_flush_local", rank, win); });
}
WEFT_MPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win) {
  return win_call("MPI_Win_flush_all", win, [&] { flush("MPI_Win_flush_all", -1, win); });
}
WEFT_MPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win) {
  return win_call("MPI_Win_flush_local_all", win,
                  [&] { flush("MPI_Win_flush_local_all", -1, win); });
}
WEFT_MPI_ALIAS(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win) {
  return win_call("MPI_Win_sync", win, [&] {
    window_of(win);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  });
}
WEFT_MPI_ALIAS(Win_sync)

}  // extern "C"

// WindowMemory: how one process reaches the memory of every member of a window, for
// one-sided communication between ranks of one host.
//
// Each operation is carried out by the origin alone, at once, straight into (or out of)
// the target's memory, so it is complete when its call returns and a target makes
// progress without calling MPI (it may be computing):
//   - this rank's own memory, and memory of windows weft allocated (MPI_Win_allocate,
//     MPI_Win_allocate_shared), which lives in one shared segment that every member
//     maps: plain copies;
//   - a peer's memory the program supplied (MPI_Win_create, MPI_Win_attach):
//     process_vm_readv/writev, one system call per batch of byte runs.
// Accumulates hold the target's update lock, a word of the window's control segment
// (also shared by every member), so that concurrent ones apply element by element as
// the standard requires; MPI_Win_lock's shared and exclusive locks are a second word.
//
// A window whose members are not all on one host (boot, IPC and PID namespaces, and
// /dev/shm) has no control segment, and its communication calls refuse
// (docs/MPI.md, "One-sided communication").
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mpi/src/derived_types.h"
#include "transport/shm/segment.h"
#include "weft/group.h"

namespace weft::mpi {

// The lock words of one member, in the control segment: a cache line each so that
// members' locks do not share one.
struct alignas(64) TargetLocks {
  std::atomic<uint32_t> update{0};  // 1 while an accumulate reads and writes its memory
  std::atomic<int32_t> epoch{0};    // MPI_Win_lock: -1 held exclusively, n > 0 by n sharers
};

// A member of the window, as this process reaches it.
struct WindowTarget {
  int pid = 0;
  // Its window's start in its own address space (0 for a dynamic window, whose
  // displacements are addresses).
  uint64_t base = 0;
  // Where that start is mapped here, when it is: this rank, or a window in the segment.
  // The target's byte `base + k` is then at `local + k`.
  bool mapped = false;
  std::byte* local = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
};

class WindowMemory {
 public:
  enum class Kind { kCreate, kAllocate, kShared, kDynamic };

  // Collective over `group`, the window's own. For kAllocate and kShared, `size` bytes
  // are allocated for this rank (in the shared segment when every member is on this
  // host; kShared requires that) and `base` is ignored; `contiguous` lays kShared's
  // memory out in rank order without gaps.
  WindowMemory(const weft::Group& group, Kind kind, void* base, MPI_Aint size, int disp_unit,
               bool contiguous);
  ~WindowMemory();

  WindowMemory(const WindowMemory&) = delete;
  WindowMemory& operator=(const WindowMemory&) = delete;

  // Every member is on this host: one-sided communication is possible.
  bool local() const { return locks_ != nullptr; }
  Kind kind() const { return kind_; }
  int size() const { return static_cast<int>(targets_.size()); }
  const WindowTarget& target(int rank) const { return targets_[static_cast<size_t>(rank)]; }
  // This rank's memory: MPI_Win_allocate's baseptr.
  void* own_base() const { return own_base_; }
  TargetLocks& locks(int rank) const { return locks_[rank]; }

  // The target's byte `address` in this process, when its memory is mapped here (this
  // rank's own, or allocated in the segment); nullptr otherwise.
  std::byte* mapped(int rank, uint64_t address) const;

  // Moves packed data (count elements of `typemap`, count * typemap.size bytes) to or
  // from the elements at the target's address `address`. Throws MpiError naming the
  // rank when the target's memory cannot be reached there.
  void put(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
           const std::byte* packed) const;
  void get(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
           std::byte* packed) const;

 private:
  // Creates (rank 0) or maps the control words and `data_bytes` of memory after them.
  void map_segment(const weft::Group& group, size_t data_bytes);

  Kind kind_;
  std::vector<WindowTarget> targets_;
  transport::shm::Segment segment_;  // the control words, then the allocated memory
  TargetLocks* locks_ = nullptr;
  void* own_base_ = nullptr;
  void* private_memory_ = nullptr;  // kAllocate's memory when not in a segment
};

// Holds a target's update lock (an accumulate's read, combine and write).
class UpdateLock {
 public:
  explicit UpdateLock(TargetLocks& locks);
  ~UpdateLock() { locks_.update.store(0, std::memory_order_release); }
  UpdateLock(const UpdateLock&) = delete;
  UpdateLock& operator=(const UpdateLock&) = delete;

 private:
  TargetLocks& locks_;
};

}  // namespace weft::mpi

// WindowMemory: how one process reaches the memory of every member of a window, for
// one-sided communication.
//
// Each operation is complete when its call returns. Where every member shares memory
// (one host), the origin carries it out alone, at once, straight into (or out of) the
// target's memory, so a target makes progress without calling MPI (it may be
// computing):
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
// /dev/shm), or every window under WEFT_RMA=messages, goes by active messages instead:
// every operation is a request to the target's service thread (window_service.h).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mpi/src/datatypes.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/window_service.h"
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

  // Every member shares memory with this process (the segment exists).
  bool local() const { return locks_ != nullptr; }
  Kind kind() const { return kind_; }
  int size() const { return static_cast<int>(targets_.size()); }
  const WindowTarget& target(int rank) const { return targets_[static_cast<size_t>(rank)]; }
  // This rank's memory: MPI_Win_allocate's baseptr.
  void* own_base() const { return own_base_; }

  // The target's byte `address` in this process, when its memory is mapped here (this
  // rank's own, or allocated in the segment); nullptr otherwise.
  std::byte* mapped(int rank, uint64_t address) const;
  // Where `rank`'s window starts in this process when an operation on it is a plain
  // copy here (its memory mapped, and no service thread): the one-sided calls' fast
  // path. nullptr otherwise.
  std::byte* copied_here(int rank) const {
    const WindowTarget& t = target(rank);
    return service_ == nullptr && t.mapped ? t.local : nullptr;
  }

  // The operations, on `rank`'s elements at its address `address` (count elements of
  // `typemap`, count * typemap.size bytes of packed data), each complete on return;
  // MpiError naming the rank when its memory cannot be reached there.
  void put(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
           const std::byte* packed) const;
  void get(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
           std::byte* packed) const;
  // Combines `origin` (packed values of the predefined `element`; ignored for MPI_NO_OP)
  // into the elements with `op`, atomically per element, first copying the old values
  // to `result` (may be null).
  void accumulate(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                  MPI_Datatype element, MPI_Op op, const std::byte* origin,
                  std::byte* result) const;
  // The one-sided fast path's accumulate: `count` elements of the predefined `info`
  // (with no gaps) at `at`, in `rank`'s memory as copied_here reaches it, combined under
  // the target's update lock as accumulate does. `op` is MPI_REPLACE, MPI_NO_OP or a
  // predefined operation defined on the type.
  void combine_copied_here(int rank, std::byte* at, uint64_t count, const TypeInfo& info, MPI_Op op,
                           const std::byte* origin, std::byte* result) const;
  // And its compare-and-swap, of one element of `size` bytes at `at`.
  void compare_and_swap_copied_here(int rank, std::byte* at, uint64_t size, const std::byte* origin,
                                    const std::byte* compare, std::byte* result) const;
  // One element of `typemap` (a predefined type): old value to `result`, replaced by
  // `origin` when it equals `compare`.
  void compare_and_swap(int rank, uint64_t address, const Typemap& typemap, const std::byte* origin,
                        const std::byte* compare, std::byte* result) const;
  // MPI_Win_lock's lock of `rank` (MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE): waits until
  // granted.
  void lock(int rank, int type) const;
  void unlock(int rank, int type) const;

  // The same, carried out by this process on memory it reaches, with no lock: the direct
  // path (under the target's update lock) and the service thread (which serialises
  // requests) use them.
  void accumulate_here(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                       MPI_Datatype element, MPI_Op op, const std::byte* origin,
                       std::byte* result) const;
  void compare_and_swap_here(int rank, uint64_t address, const Typemap& typemap,
                             const std::byte* origin, const std::byte* compare,
                             std::byte* result) const;
  void put_here(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                const std::byte* packed) const;
  void get_here(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
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
  // The active-message path, when the window takes it (started last: it serves this).
  std::unique_ptr<WindowService> service_;
};

}  // namespace weft::mpi

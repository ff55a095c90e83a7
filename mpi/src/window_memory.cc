#include "mpi/src/window_memory.h"

#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "base/env.h"
#include "base/host_identity.h"
#include "mpi/src/datatypes.h"
#include "mpi/src/errors.h"
#include "mpi/src/reduce_ops.h"
#include "mpi/src/requests.h"
#include "weft/collectives.h"

namespace weft::mpi {
namespace {

// What each member tells the others at creation.
struct MemberRecord {
  int32_t pid = 0;
  int32_t disp_unit = 1;
  uint64_t base = 0;
  int64_t size = 0;
  uint64_t host = 0;     // equal for processes that can share memory
  int32_t messages = 0;  // WEFT_RMA=messages on this member
  int32_t unused = 0;
};

// WEFT_RMA: whether this process asks for the active-message path everywhere.
bool messages_asked() {
  std::optional<std::string> mode = base::env::get("WEFT_RMA");
  if (!mode || *mode == "direct") return false;
  if (*mode == "messages") return true;
  throw MpiError(MPI_ERR_OTHER, "WEFT_RMA=" + *mode + ": expected direct or messages");
}

weft::Tensor bytes_of(void* data, size_t n) { return weft::Tensor(data, n, weft::DType::kUInt8); }

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

constexpr size_t kPage = 4096;
constexpr size_t kNameBytes = 128;  // the segment's name, or "!" and why there is none

std::string rank_name(int rank) { return "target rank " + std::to_string(rank); }

// Holds a target's update lock (an accumulate's read, combine and write).
class UpdateLock {
 public:
  explicit UpdateLock(TargetLocks& locks) : locks_(locks) {
    for (int round = 0; locks_.update.exchange(1, std::memory_order_acquire) != 0; ++round) {
      pause_polling(round);
    }
  }
  ~UpdateLock() { locks_.update.store(0, std::memory_order_release); }
  UpdateLock(const UpdateLock&) = delete;
  UpdateLock& operator=(const UpdateLock&) = delete;

 private:
  TargetLocks& locks_;
};

// `count` elements of the predefined `info` (with no gaps) at `in_place`: their old
// values to `result` (may be null), then `op` applied with `origin`.
void combine_in_place(std::byte* in_place, uint64_t count, const TypeInfo& info, MPI_Op op,
                      const std::byte* origin, std::byte* result) {
  const uint64_t bytes = count * info.size;
  if (result != nullptr && bytes > 0) std::memcpy(result, in_place, bytes);
  if (op == MPI_NO_OP || bytes == 0) return;
  if (op == MPI_REPLACE) {
    std::memcpy(in_place, origin, bytes);
  } else {
    reduce_local(op, info, origin, in_place, count);
  }
}

}  // namespace

WindowMemory::WindowMemory(const weft::Group& group, Kind kind, void* base, MPI_Aint size,
                           int disp_unit, bool contiguous)
    : kind_(kind) {
  const int n = group.size();
  const int me = group.rank();
  const bool allocates = kind == Kind::kAllocate || kind == Kind::kShared;
  MemberRecord mine;
  mine.pid = getpid();
  mine.disp_unit = disp_unit;
  mine.base = allocates ? 0 : reinterpret_cast<uint64_t>(base);
  mine.size = size;
  mine.host = base::local_memory_domain();
  mine.messages = messages_asked() ? 1 : 0;
  std::vector<MemberRecord> records(static_cast<size_t>(n));
  weft::all_gather(bytes_of(&mine, sizeof mine), bytes_of(records.data(), n * sizeof mine), group);

  bool one_host = true;
  bool messages = false;
  for (const MemberRecord& r : records) {
    one_host = one_host && r.host == records[0].host;
    messages = messages || r.messages != 0;
  }
  if (kind == Kind::kShared && !one_host) {
    throw MpiError(MPI_ERR_RMA_SHARED,
                   "MPI_Win_allocate_shared needs every rank of the communicator on one host "
                   "(sharing memory); split it with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  }

  // Where each member's allocated memory starts in the segment's data area.
  std::vector<size_t> offsets(static_cast<size_t>(n), 0);
  size_t data_bytes = 0;
  if (allocates && one_host) {
    for (int r = 0; r < n; ++r) {
      size_t align = kind == Kind::kShared && contiguous ? 1 : kind == Kind::kShared ? kPage : 64;
      data_bytes = round_up(data_bytes, align);
      offsets[static_cast<size_t>(r)] = data_bytes;
      data_bytes += static_cast<size_t>(records[static_cast<size_t>(r)].size);
    }
  }
  if (one_host) map_segment(group, data_bytes);
  // The other members reach memory the program supplied with process_vm_writev/readv,
  // which Yama's ptrace_scope 1 (Ubuntu's default) allows only to a process's declared
  // tracers: declare any (best effort; without Yama the call is a harmless no-op).
  if (one_host && !allocates) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  const size_t control = round_up(n * sizeof(TargetLocks), kPage);

  if (allocates && !one_host) {
    if (posix_memalign(&private_memory_, 64, size == 0 ? 1 : static_cast<size_t>(size)) != 0) {
      throw MpiError(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
    }
    std::memset(private_memory_, 0, static_cast<size_t>(size));
    own_base_ = private_memory_;
  }

  targets_.resize(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const MemberRecord& record = records[static_cast<size_t>(r)];
    WindowTarget& t = targets_[static_cast<size_t>(r)];
    t.pid = record.pid;
    t.size = record.size;
    t.disp_unit = record.disp_unit;
    t.base = record.base;
    if (allocates && one_host) {
      t.mapped = true;
      t.local = segment_.data() + control + offsets[static_cast<size_t>(r)];
      t.base = reinterpret_cast<uint64_t>(t.local);
      if (r == me) own_base_ = t.local;
    } else if (r == me) {
      t.mapped = true;
      t.local = allocates ? static_cast<std::byte*>(own_base_) : static_cast<std::byte*>(base);
      t.base = reinterpret_cast<uint64_t>(t.local);
      // A dynamic window's displacements are addresses in the target, which may be
      // wrong: even this rank's own are reached through process_vm_writev/readv, which
      // report a bad one instead of faulting.
      if (kind == Kind::kDynamic) t.base = 0, t.local = nullptr, t.mapped = false;
    }
  }
  if (!one_host || messages) service_ = std::make_unique<WindowService>(group, *this);
}

WindowMemory::~WindowMemory() {
  service_.reset();  // before the memory it serves
  std::free(private_memory_);
}

void WindowMemory::map_segment(const weft::Group& group, size_t data_bytes) {
  static std::atomic<unsigned> windows_made{0};
  const int n = group.size();
  const size_t control = round_up(n * sizeof(TargetLocks), kPage);
  char name[kNameBytes] = {};
  if (group.rank() == 0) {
    std::snprintf(name, sizeof name, "/weft-w%u.%d", windows_made.fetch_add(1), getpid());
    try {
      segment_ = transport::shm::Segment::create(
          name, control + data_bytes, "an MPI window's shared memory", "a smaller window");
    } catch (const std::exception& e) {
      std::snprintf(name, sizeof name, "!%s", e.what());
    }
  }
  weft::broadcast(bytes_of(name, sizeof name), weft::GroupRank{0}, group);
  name[kNameBytes - 1] = '\0';
  if (name[0] == '!') {
    throw MpiError(MPI_ERR_NO_MEM, std::string("rank 0 of the window could not create its "
                                               "shared segment: ") +
                                       (name + 1));
  }
  std::string failure;
  if (group.rank() != 0) {
    try {
      segment_ = transport::shm::Segment::open(name);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  // Every member has mapped it (or none goes on): the name can go.
  int32_t ok = failure.empty() ? 1 : 0;
  weft::all_reduce(weft::Tensor(&ok, 1, weft::DType::kInt32), weft::ReduceOp::kMin, group);
  if (group.rank() == 0) segment_.unlink();
  if (!ok) {
    throw MpiError(MPI_ERR_OTHER, failure.empty()
                                      ? "another rank of the window could not map its segment"
                                      : "cannot map the window's shared segment: " + failure);
  }
  // The segment starts zero-filled, which is every lock word released.
  locks_ = reinterpret_cast<TargetLocks*>(segment_.data());
}

namespace {

// The target's byte `address`, mapped here.
std::byte* at(const WindowTarget& t, uint64_t address) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<uintptr_t>(t.local) + (address - t.base));
}

// Moves the packed bytes to (write) or from the elements at `address` in `rank`'s
// process: the elements' byte runs in batches of IOV_MAX, adjacent runs merged.
void move_remote(const WindowTarget& t, int rank, uint64_t address, uint64_t count,
                 const Typemap& typemap, std::byte* packed, bool write) {
  std::vector<iovec> remote;
  remote.reserve(IOV_MAX);
  size_t batch_bytes = 0;
  auto flush = [&] {
    if (remote.empty()) return;
    iovec local{packed, batch_bytes};
    ssize_t moved = write ? process_vm_writev(t.pid, &local, 1, remote.data(), remote.size(), 0)
                          : process_vm_readv(t.pid, &local, 1, remote.data(), remote.size(), 0);
    if (moved != static_cast<ssize_t>(batch_bytes)) {
      int error = moved < 0 ? errno : EFAULT;
      throw MpiError(error == EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
                     std::string(write ? "cannot write to " : "cannot read from ") +
                         rank_name(rank) + "'s memory (process " + std::to_string(t.pid) +
                         "): " + std::strerror(error) +
                         (error == EFAULT ? " (the target location is not in its memory)" : ""));
    }
    packed += batch_bytes;
    batch_bytes = 0;
    remote.clear();
  };
  for (uint64_t i = 0; i < count; ++i) {
    for (const Segment& s : typemap.segments) {
      if (s.length == 0) continue;
      auto* where = reinterpret_cast<std::byte*>(address + i * typemap.extent + s.offset);
      if (!remote.empty() &&
          static_cast<std::byte*>(remote.back().iov_base) + remote.back().iov_len == where) {
        remote.back().iov_len += s.length;
      } else {
        if (remote.size() == IOV_MAX) flush();
        remote.push_back(iovec{where, s.length});
      }
      batch_bytes += s.length;
    }
  }
  flush();
}

// Elements that are one byte range (a predefined type, say): a plain copy.
bool one_range(uint64_t count, const Typemap& typemap) {
  return typemap.segments.size() == 1 && (count == 1 || typemap.dense());
}

}  // namespace

std::byte* WindowMemory::mapped(int rank, uint64_t address) const {
  const WindowTarget& t = target(rank);
  return t.mapped ? at(t, address) : nullptr;
}

void WindowMemory::put_here(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                            const std::byte* packed) const {
  const WindowTarget& t = target(rank);
  if (t.mapped && one_range(count, typemap)) {
    std::memcpy(at(t, address) + typemap.segments[0].offset, packed, count * typemap.size);
  } else if (t.mapped) {
    unpack(packed, count * typemap.size, count, typemap, at(t, address));
  } else {
    move_remote(t, rank, address, count, typemap, const_cast<std::byte*>(packed), true);
  }
}

void WindowMemory::get_here(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                            std::byte* packed) const {
  const WindowTarget& t = target(rank);
  if (t.mapped && one_range(count, typemap)) {
    std::memcpy(packed, at(t, address) + typemap.segments[0].offset, count * typemap.size);
  } else if (t.mapped) {
    pack(at(t, address), count, typemap, packed);
  } else {
    move_remote(t, rank, address, count, typemap, packed, false);
  }
}

void WindowMemory::accumulate_here(int rank, uint64_t address, uint64_t count,
                                   const Typemap& typemap, MPI_Datatype element, MPI_Op op,
                                   const std::byte* origin, std::byte* result) const {
  const uint64_t bytes = count * typemap.size;
  const TypeInfo& info = type_info(element);
  const std::shared_ptr<const Typemap>& one = typemap_of(element);
  // The common case, an array of the element type in memory mapped here: combined in
  // place, with no copy.
  std::byte* in_place = mapped(rank, address);
  if (in_place != nullptr && &typemap == one.get() && info.size == info.extent) {
    combine_in_place(in_place, count, info, op, origin, result);
    return;
  }
  if (op == MPI_REPLACE && result == nullptr) {
    put_here(rank, address, count, typemap, origin);
    return;
  }
  std::vector<std::byte> old(bytes);
  get_here(rank, address, count, typemap, old.data());
  if (result != nullptr && bytes > 0) std::memcpy(result, old.data(), bytes);
  if (op == MPI_NO_OP || bytes == 0) return;
  if (op == MPI_REPLACE) {
    put_here(rank, address, count, typemap, origin);
    return;
  }
  // Into arrays of the element type (whose values the reductions work on in place; a
  // pair type's packed values are not at their array stride), combined, and back.
  const uint64_t n = bytes / info.size;
  std::vector<std::byte> in(n * info.extent), inout(n * info.extent);
  unpack(origin, bytes, n, *one, in.data());
  unpack(old.data(), bytes, n, *one, inout.data());
  reduce_local(op, info, in.data(), inout.data(), n);
  pack(inout.data(), n, *one, old.data());
  put_here(rank, address, count, typemap, old.data());
}

void WindowMemory::compare_and_swap_here(int rank, uint64_t address, const Typemap& typemap,
                                         const std::byte* origin, const std::byte* compare,
                                         std::byte* result) const {
  get_here(rank, address, 1, typemap, result);
  if (std::memcmp(result, compare, typemap.size) == 0) {
    put_here(rank, address, 1, typemap, origin);
  }
}

void WindowMemory::put(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                       const std::byte* packed) const {
  if (service_) return service_->put(rank, address, count, typemap, packed);
  put_here(rank, address, count, typemap, packed);
}

void WindowMemory::get(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                       std::byte* packed) const {
  if (service_) return service_->get(rank, address, count, typemap, packed);
  get_here(rank, address, count, typemap, packed);
}

void WindowMemory::accumulate(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                              MPI_Datatype element, MPI_Op op, const std::byte* origin,
                              std::byte* result) const {
  if (service_) {
    return service_->accumulate(rank, address, count, typemap, element, op, origin, result);
  }
  UpdateLock lock(locks_[rank]);
  accumulate_here(rank, address, count, typemap, element, op, origin, result);
}

void WindowMemory::combine_copied_here(int rank, std::byte* at, uint64_t count,
                                       const TypeInfo& info, MPI_Op op, const std::byte* origin,
                                       std::byte* result) const {
  UpdateLock lock(locks_[rank]);
  combine_in_place(at, count, info, op, origin, result);
}

void WindowMemory::compare_and_swap_copied_here(int rank, std::byte* at, uint64_t size,
                                                const std::byte* origin, const std::byte* compare,
                                                std::byte* result) const {
  UpdateLock lock(locks_[rank]);
  std::memcpy(result, at, size);
  if (std::memcmp(result, compare, size) == 0) std::memcpy(at, origin, size);
}

void WindowMemory::compare_and_swap(int rank, uint64_t address, const Typemap& typemap,
                                    const std::byte* origin, const std::byte* compare,
                                    std::byte* result) const {
  if (service_) return service_->compare_and_swap(rank, address, typemap, origin, compare, result);
  UpdateLock lock(locks_[rank]);
  compare_and_swap_here(rank, address, typemap, origin, compare, result);
}

void WindowMemory::lock(int rank, int type) const {
  if (service_) return service_->lock(rank, type);
  std::atomic<int32_t>& epoch = locks_[rank].epoch;
  for (int round = 0;; ++round) {
    int32_t holders = epoch.load(std::memory_order_relaxed);
    bool free = type == MPI_LOCK_EXCLUSIVE ? holders == 0 : holders >= 0;
    int32_t next = type == MPI_LOCK_EXCLUSIVE ? -1 : holders + 1;
    if (free && epoch.compare_exchange_weak(holders, next, std::memory_order_acquire)) return;
    pause_polling(round);
  }
}

void WindowMemory::unlock(int rank, int type) const {
  if (service_) return service_->unlock(rank, type);
  std::atomic<int32_t>& epoch = locks_[rank].epoch;
  if (type == MPI_LOCK_EXCLUSIVE) {
    epoch.store(0, std::memory_order_release);
  } else {
    epoch.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace weft::mpi

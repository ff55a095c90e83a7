// One-sided windows' life cycle: MPI_Win_create, MPI_Win_allocate,
// MPI_Win_allocate_shared, MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach,
// MPI_Win_shared_query and MPI_Win_free, each collective (or local) as the standard
// says. Their memory, and how the other members reach it, is window_memory.h's; the
// communication calls are in rma_operations.cc and rma_synchronization.cc.
#include "mpi/src/windows.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/keyvals.h"
#include "mpi/src/objects.h"

using weft::mpi::comm_of;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;
using weft::mpi::window_of;

namespace weft::mpi {

void invalid_window(MPI_Win win) {
  throw MpiError(MPI_ERR_WIN,
                 win == MPI_WIN_NULL ? "the window is MPI_WIN_NULL" : "not a valid window");
}

}  // namespace weft::mpi

namespace {

using Kind = weft::mpi::WindowMemory::Kind;

// The collective part of every creation: the window's own communicator, and its
// memory as every member reaches it. For the allocating kinds `base` is ignored and
// the window's own memory is the one allocated.
MPI_Win make_window(Kind kind, void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm) {
  const MPI_ABI_Comm& parent = comm_of(comm);
  weft::mpi::InfoEntries hints = weft::mpi::hints_of(info);  // a bad handle is an error
  // MPI_Win_allocate_shared's memory is one block in rank order unless asked otherwise.
  const std::string* noncontig = weft::mpi::find_entry(hints, "alloc_shared_noncontig");
  const bool contiguous = noncontig == nullptr || *noncontig != "true";
  std::optional<weft::Group> group = weft::split_group(parent.group, 0, parent.group.rank());
  auto memory =
      std::make_unique<weft::mpi::WindowMemory>(*group, kind, base, size, disp_unit, contiguous);
  auto* w = new MPI_ABI_Win();
  w->comm = weft::mpi::make_comm(*group, parent);
  w->base = kind == Kind::kAllocate || kind == Kind::kShared ? memory->own_base() : base;
  w->size = size;
  w->disp_unit = disp_unit;
  w->allocated = kind == Kind::kAllocate || kind == Kind::kShared;
  w->dynamic = kind == Kind::kDynamic;
  w->memory = std::move(memory);
  w->hints = std::move(hints);
  w->locks_held.assign(static_cast<size_t>(group->size()), MPI_ABI_Win::HeldLock{});
  return w;
}

// The displacement unit of either form of a call (the _c forms take an MPI_Aint).
int checked_disp_unit(MPI_Aint disp_unit) {
  if (disp_unit <= 0 || disp_unit > INT_MAX) {
    throw MpiError(MPI_ERR_DISP, "disp_unit " + std::to_string(disp_unit) +
                                     (disp_unit <= 0 ? " is not positive" : " exceeds INT_MAX"));
  }
  return static_cast<int>(disp_unit);
}

void check_size(MPI_Aint size) {
  if (size < 0) throw MpiError(MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
}

// MPI_Win_create's work, for both forms.
void create_window(const char* function, void* base, MPI_Aint size, MPI_Aint disp_unit,
                   MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  weft::mpi::require_initialized(function);
  comm_of(comm);
  check_size(size);
  int unit = checked_disp_unit(disp_unit);
  require_pointer(win, "win");
  if (size > 0) require_pointer(base, "base");
  *win = make_window(Kind::kCreate, base, size, unit, info, comm);
}

// MPI_Win_allocate's and MPI_Win_allocate_shared's work, for both forms.
void allocate_window(const char* function, Kind kind, MPI_Aint size, MPI_Aint disp_unit,
                     MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  weft::mpi::require_initialized(function);
  comm_of(comm);
  check_size(size);
  int unit = checked_disp_unit(disp_unit);
  require_pointer(baseptr, "baseptr");
  require_pointer(win, "win");
  *win = make_window(kind, nullptr, size, unit, info, comm);
  *static_cast<void**>(baseptr) = (*win)->base;
}

// MPI_Win_shared_query's work: `rank`'s size, displacement unit and base here.
void query_shared(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  MPI_ABI_Win& w = window_of(win);
  require_pointer(size, "size");
  require_pointer(disp_unit, "disp_unit");
  require_pointer(baseptr, "baseptr");
  const weft::mpi::WindowMemory& m = *w.memory;
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= m.size())) {
    throw MpiError(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in [0, " +
                                     std::to_string(m.size()) + ") (the window's group)");
  }
  // MPI_PROC_NULL: the lowest rank whose memory is not empty.
  if (rank == MPI_PROC_NULL) {
    rank = 0;
    while (rank + 1 < m.size() && m.target(rank).size == 0) ++rank;
  }
  const weft::mpi::WindowTarget& t = m.target(rank);
  // Memory this process can load and store: the allocating kinds' (all in the shared
  // segment on one host). Any other window's answers none, as the standard allows.
  const bool reachable = w.allocated && m.local();
  *size = reachable ? t.size : 0;
  *disp_unit = t.disp_unit;
  *static_cast<void**>(baseptr) = reachable ? t.local : nullptr;
}

}  // namespace

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win* win) {
  return mpi_call("MPI_Win_create", comm,
                  [&] { create_window("MPI_Win_create", base, size, disp_unit, info, comm, win); });
}
WEFT_MPI_ALIAS(Win_create)

int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win* win) {
  return mpi_call("MPI_Win_create_c", comm, [&] {
    create_window("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
  });
}
WEFT_MPI_ALIAS(Win_create_c)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                      MPI_Win* win) {
  return mpi_call("MPI_Win_allocate", comm, [&] {
    allocate_window("MPI_Win_allocate", Kind::kAllocate, size, disp_unit, info, comm, baseptr, win);
  });
}
WEFT_MPI_ALIAS(Win_allocate)

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void* baseptr, MPI_Win* win) {
  return mpi_call("MPI_Win_allocate_c", comm, [&] {
    allocate_window("MPI_Win_allocate_c", Kind::kAllocate, size, disp_unit, info, comm, baseptr,
                    win);
  });
}
WEFT_MPI_ALIAS(Win_allocate_c)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void* baseptr, MPI_Win* win) {
  return mpi_call("MPI_Win_allocate_shared", comm, [&] {
    allocate_window("MPI_Win_allocate_shared", Kind::kShared, size, disp_unit, info, comm, baseptr,
                    win);
  });
}
WEFT_MPI_ALIAS(Win_allocate_shared)

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void* baseptr, MPI_Win* win) {
  return mpi_call("MPI_Win_allocate_shared_c", comm, [&] {
    allocate_window("MPI_Win_allocate_shared_c", Kind::kShared, size, disp_unit, info, comm,
                    baseptr, win);
  });
}
WEFT_MPI_ALIAS(Win_allocate_shared_c)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  return weft::mpi::win_call("MPI_Win_shared_query", win, [&] {
    require_pointer(disp_unit, "disp_unit");
    MPI_Aint unit = 0;
    query_shared(win, rank, size, &unit, baseptr);
    *disp_unit = static_cast<int>(unit);  // a window's units were ints at creation
  });
}
WEFT_MPI_ALIAS(Win_shared_query)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                            void* baseptr) {
  return weft::mpi::win_call("MPI_Win_shared_query_c", win,
                             [&] { query_shared(win, rank, size, disp_unit, baseptr); });
}
WEFT_MPI_ALIAS(Win_shared_query_c)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return mpi_call("MPI_Win_create_dynamic", comm, [&] {
    weft::mpi::require_initialized("MPI_Win_create_dynamic");
    comm_of(comm);
    require_pointer(win, "win");
    *win = make_window(Kind::kDynamic, nullptr, 0, 1, info, comm);
  });
}
WEFT_MPI_ALIAS(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  return mpi_call("MPI_Win_attach", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_attach");
    MPI_ABI_Win& w = window_of(win);
    if (!w.dynamic) {
      throw MpiError(MPI_ERR_RMA_FLAVOR, "only a window of MPI_Win_create_dynamic takes memory");
    }
    if (size < 0) throw MpiError(MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
    if (size > 0) require_pointer(base, "base");
    w.attached.emplace_back(base, size);
  });
}
WEFT_MPI_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void* base) {
  return mpi_call("MPI_Win_detach", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_detach");
    MPI_ABI_Win& w = window_of(win);
    for (auto it = w.attached.begin(); it != w.attached.end(); ++it) {
      if (it->first == base) {
        w.attached.erase(it);
        return;
      }
    }
    throw MpiError(MPI_ERR_RMA_ATTACH, "no memory is attached at that address");
  });
}
WEFT_MPI_ALIAS(Win_detach)

int PMPI_Win_free(MPI_Win* win) {
  return mpi_call("MPI_Win_free", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Win_free");
    require_pointer(win, "win");
    MPI_ABI_Win& w = window_of(*win);
    bool locked = w.locked_all || std::any_of(w.locks_held.begin(), w.locks_held.end(),
                                              [](const auto& l) { return l.type != 0; });
    if (locked || w.access_epoch || w.exposure_epoch) {
      throw MpiError(MPI_ERR_RMA_SYNC,
                     "MPI_Win_free while this rank holds a lock or a post/start epoch is open");
    }
    weft::mpi::delete_attributes(*win);
    // Collective: no member frees while another may still reach its memory.
    MPI_ABI_Comm& c = comm_of(w.comm);
    weft::barrier(c.group);
    w.memory.reset();  // its service thread (if any) talks on the group: stop it first
    weft::destroy_group(c.group);
    c.magic = 0;
    delete &c;
    w.magic = 0;
    delete &w;
    *win = MPI_WIN_NULL;
  });
}
WEFT_MPI_ALIAS(Win_free)

}  // extern "C"

// The object behind a window handle, shared by the files that manage windows: their
// life cycle (windows.cc), and their names, info, error handlers and attributes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/src/errors.h"
#include "mpi/src/window_memory.h"
#include "weft/p2p.h"

struct MPI_ABI_Win {
  static constexpr uint32_t kMagic = 0x5757494e;  // "WWIN"
  uint32_t magic = kMagic;
  MPI_Comm comm = MPI_COMM_NULL;  // the window's own: a duplicate of the creator's
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  bool allocated = false;  // MPI_Win_allocate's memory, freed with the window
  bool dynamic = false;
  // How this process reaches every member's memory (one-sided communication).
  std::unique_ptr<weft::mpi::WindowMemory> memory;
  // A dynamic window's attached regions: (base, size).
  std::vector<std::pair<void*, MPI_Aint>> attached;
  // MPI_Win_set_name's name ("" until then).
  std::string name;
  // The handler of errors on this window: MPI_ERRORS_ARE_FATAL unless set.
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // The hints given at creation and by MPI_Win_set_info. Of the standard's, weft acts on
  // alloc_shared_noncontig (at creation); every operation completes at once, so any
  // accumulate_ordering and no_locks hold whatever they say.
  std::vector<std::pair<std::string, std::string>> hints;
  // Where MPI_Win_get_attr's MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL answers live.
  int flavor_attribute = MPI_WIN_FLAVOR_CREATE;
  int model_attribute = MPI_WIN_UNIFIED;

  // This rank's synchronisation epochs (rma_synchronization.cc), which its
  // communication calls check (an access outside every epoch is MPI_ERR_RMA_SYNC).
  // Fence: open from a fence without MPI_MODE_NOSUCCEED to the next fence.
  bool fence_epoch = false;
  // Passive target: by window rank, the lock this rank holds on it (MPI_LOCK_SHARED,
  // MPI_LOCK_EXCLUSIVE, or 0), and whether it took the target's lock word for it
  // (not under MPI_MODE_NOCHECK).
  struct HeldLock {
    int type = 0;
    bool word = false;
  };
  std::vector<HeldLock> locks_held;
  bool locked_all = false;
  bool locked_all_words = false;
  // General active target: MPI_Win_start's targets, and MPI_Win_post's origins with the
  // receives of their MPI_Win_complete notices (window ranks).
  bool access_epoch = false;
  std::vector<int> access_group;
  bool exposure_epoch = false;
  std::vector<int> exposure_group;
  std::vector<weft::Request> completions;
};

namespace weft::mpi {

// The window behind a handle, or nullptr for MPI_WIN_NULL or garbage.
inline MPI_ABI_Win* window_or_null(MPI_Win win) {
  if (reinterpret_cast<uintptr_t>(win) < 0x1000 || win->magic != MPI_ABI_Win::kMagic) {
    return nullptr;
  }
  return win;
}

// MpiError(MPI_ERR_WIN) naming what `win` is. Out of line: window_of is on every
// one-sided call's path and keeps only the test.
[[noreturn]] void invalid_window(MPI_Win win);

// The window behind a handle; MpiError(MPI_ERR_WIN) for MPI_WIN_NULL or garbage.
inline MPI_ABI_Win& window_of(MPI_Win win) {
  MPI_ABI_Win* w = window_or_null(win);
  if (w == nullptr) invalid_window(win);
  return *w;
}

// Applies `win`'s error handler to a failure of `function` (MPI_COMM_WORLD's when `win`
// is not a window): returns the class or does not return.
int handle_win_error(MPI_Win win, const char* function, int error_class,
                     const std::string& message);

// Like mpi_call, with the window's error handler.
template <typename Body>
int win_call(const char* function, MPI_Win win, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& e) {
    return handle_win_error(win, function, error_class_of(e), e.what());
  }
}

}  // namespace weft::mpi

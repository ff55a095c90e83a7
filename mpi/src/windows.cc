// One-sided windows, their life cycle only: MPI_Win_create, MPI_Win_allocate,
// MPI_Win_create_dynamic, MPI_Win_attach, MPI_Win_detach and MPI_Win_free, each
// collective (or local) as the standard says. The communication calls (MPI_Put,
// MPI_Get, MPI_Accumulate and their synchronisation) are outside weft's MPI, and
// neither mpi.h nor the library has them: a build that probes for them (OSU's configure
// looks for MPI_Accumulate) leaves its one-sided parts out, while the programs whose
// shared set-up code creates windows still build and run.
#include "mpi/src/windows.h"

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

MPI_ABI_Win& window_of(MPI_Win win) {
  auto address = reinterpret_cast<uintptr_t>(win);
  if (win == MPI_WIN_NULL || address < 0x1000 || win->magic != MPI_ABI_Win::kMagic) {
    throw MpiError(MPI_ERR_WIN,
                   win == MPI_WIN_NULL ? "the window is MPI_WIN_NULL" : "not a valid window");
  }
  return *win;
}

}  // namespace weft::mpi

namespace {

// Weft acts on no window hints, but a bad info handle is still an error.
void check_info(MPI_Info info) { weft::mpi::hints_of(info); }

// The collective part of every creation: the window's own communicator.
MPI_Win make_window(void* base, MPI_Aint size, int disp_unit, MPI_Comm comm, bool allocated,
                    bool dynamic) {
  const MPI_ABI_Comm& parent = comm_of(comm);
  std::optional<weft::Group> group = weft::split_group(parent.group, 0, parent.group.rank());
  auto* w = new MPI_ABI_Win();
  w->comm = weft::mpi::make_comm(*group, parent);
  w->base = base;
  w->size = size;
  w->disp_unit = disp_unit;
  w->allocated = allocated;
  w->dynamic = dynamic;
  return w;
}

void check_size(MPI_Aint size, int disp_unit) {
  if (size < 0) throw MpiError(MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
  if (disp_unit <= 0) {
    throw MpiError(MPI_ERR_DISP, "disp_unit " + std::to_string(disp_unit) + " is not positive");
  }
}

}  // namespace

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win* win) {
  return mpi_call("MPI_Win_create", comm, [&] {
    weft::mpi::require_initialized("MPI_Win_create");
    comm_of(comm);
    check_size(size, disp_unit);
    check_info(info);
    require_pointer(win, "win");
    if (size > 0) require_pointer(base, "base");
    *win = make_window(base, size, disp_unit, comm, false, false);
  });
}
WEFT_MPI_ALIAS(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                      MPI_Win* win) {
  return mpi_call("MPI_Win_allocate", comm, [&] {
    weft::mpi::require_initialized("MPI_Win_allocate");
    comm_of(comm);
    check_size(size, disp_unit);
    check_info(info);
    require_pointer(baseptr, "baseptr");
    require_pointer(win, "win");
    void* memory = nullptr;
    if (posix_memalign(&memory, 64, size == 0 ? 1 : static_cast<size_t>(size)) != 0) {
      throw MpiError(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
    }
    try {
      *win = make_window(memory, size, disp_unit, comm, true, false);
    } catch (...) {
      free(memory);
      throw;
    }
    *static_cast<void**>(baseptr) = memory;
  });
}
WEFT_MPI_ALIAS(Win_allocate)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return mpi_call("MPI_Win_create_dynamic", comm, [&] {
    weft::mpi::require_initialized("MPI_Win_create_dynamic");
    comm_of(comm);
    check_info(info);
    require_pointer(win, "win");
    *win = make_window(nullptr, 0, 1, comm, false, true);
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
    weft::mpi::delete_attributes(*win);
    // Collective: no member frees while another may still reach its memory.
    MPI_ABI_Comm& c = comm_of(w.comm);
    weft::barrier(c.group);
    weft::destroy_group(c.group);
    c.magic = 0;
    delete &c;
    if (w.allocated) free(w.base);
    w.magic = 0;
    delete &w;
    *win = MPI_WIN_NULL;
  });
}
WEFT_MPI_ALIAS(Win_free)

}  // extern "C"

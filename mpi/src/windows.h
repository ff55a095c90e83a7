// The object behind a window handle, shared by the files that manage windows: their
// life cycle (windows.cc), and their names, info, error handlers and attributes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct MPI_ABI_Win {
  static constexpr uint32_t kMagic = 0x5757494e;  // "WWIN"
  uint32_t magic = kMagic;
  MPI_Comm comm = MPI_COMM_NULL;  // the window's own: a duplicate of the creator's
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  bool allocated = false;  // MPI_Win_allocate's memory, freed with the window
  bool dynamic = false;
  // A dynamic window's attached regions: (base, size).
  std::vector<std::pair<void*, MPI_Aint>> attached;
  // MPI_Win_set_name's name ("" until then).
  std::string name;
  // The handler of errors on this window: MPI_ERRORS_ARE_FATAL unless set.
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // MPI_Win_set_info's hints, which weft keeps but does not act on.
  std::vector<std::pair<std::string, std::string>> hints;
  // Where MPI_Win_get_attr's MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL answers live.
  int flavor_attribute = MPI_WIN_FLAVOR_CREATE;
  int model_attribute = MPI_WIN_UNIFIED;
};

namespace weft::mpi {

// The window behind a handle; MpiError(MPI_ERR_WIN) for MPI_WIN_NULL or garbage.
MPI_ABI_Win& window_of(MPI_Win win);

}  // namespace weft::mpi

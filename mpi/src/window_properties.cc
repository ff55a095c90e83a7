// What a window is besides its memory: its name, group, info hints and error handler
// (MPI_Win_set_name and the rest). Files' error handlers are in file_errhandlers.cc.
#include <cstdio>
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/objects.h"
#include "mpi/src/windows.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;
using weft::mpi::window_of;

namespace weft::mpi {

int handle_win_error(MPI_Win win, const char* function, int error_class,
                     const std::string& message) {
  MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
  try {
    handler = window_of(win).errhandler;
  } catch (const MpiError&) {
    // Not a window: MPI_COMM_WORLD's handler applies, as for any error without one.
    return handle_error(MPI_COMM_WORLD, function, error_class, message);
  }
  return apply_errhandler(handler, function, error_class, message,
                          [&](MPI_Errhandler user, int& code) {
                            MPI_Win on = win;
                            user->win_function(&on, &code);
                          });
}

}  // namespace weft::mpi

using weft::mpi::handle_win_error;
using weft::mpi::win_call;

extern "C" {

int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  return win_call("MPI_Win_set_name", win, [&] {
    MPI_ABI_Win& w = window_of(win);
    require_pointer(win_name, "win_name");
    w.name = std::string(win_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}
WEFT_MPI_ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  return win_call("MPI_Win_get_name", win, [&] {
    // The null handle has a name too, as MPI_COMM_NULL's and MPI_DATATYPE_NULL's do.
    const std::string name =
        win == MPI_WIN_NULL ? std::string("MPI_WIN_NULL") : window_of(win).name;
    require_pointer(win_name, "win_name");
    require_pointer(resultlen, "resultlen");
    std::memcpy(win_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
  });
}
WEFT_MPI_ALIAS(Win_get_name)

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  return win_call("MPI_Win_get_group", win, [&] {
    const MPI_ABI_Win& w = window_of(win);
    require_pointer(group, "group");
    // The group of the window's own communicator: the creator's members.
    int code = PMPI_Comm_group(w.comm, group);
    if (code != MPI_SUCCESS) throw MpiError(code, "cannot make the window's group");
  });
}
WEFT_MPI_ALIAS(Win_get_group)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  return win_call("MPI_Win_set_info", win, [&] {
    MPI_ABI_Win& w = window_of(win);
    for (const auto& [key, value] : weft::mpi::hints_of(info)) {
      weft::mpi::set_entry(w.hints, key, value);
    }
  });
}
WEFT_MPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  return win_call("MPI_Win_get_info", win, [&] {
    const MPI_ABI_Win& w = window_of(win);
    require_pointer(info_used, "info_used");
    // The standard's window hints with their defaults, unless given.
    weft::mpi::InfoEntries used = w.hints;
    for (const auto& [key, value] : {std::pair<const char*, const char*>{"no_locks", "false"},
                                     {"accumulate_ordering", "rar,raw,war,waw"},
                                     {"accumulate_ops", "same_op_no_op"},
                                     {"same_size", "false"},
                                     {"same_disp_unit", "false"},
                                     {"alloc_shared_noncontig", "false"}}) {
      if (weft::mpi::find_entry(used, key) == nullptr) used.emplace_back(key, value);
    }
    *info_used = weft::mpi::new_info(used);
  });
}
WEFT_MPI_ALIAS(Win_get_info)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return mpi_call("MPI_Win_create_errhandler", MPI_COMM_WORLD, [&] {
    if (win_errhandler_fn == nullptr) throw MpiError(MPI_ERR_ARG, "win_errhandler_fn is NULL");
    require_pointer(errhandler, "errhandler");
    // Never deleted, as communicators' handlers are not (errhandlers.cc says why).
    auto* handler = new MPI_ABI_Errhandler();
    handler->win_function = win_errhandler_fn;
    *errhandler = handler;
  });
}
WEFT_MPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return win_call("MPI_Win_set_errhandler", win, [&] {
    MPI_ABI_Win& w = window_of(win);
    MPI_ABI_Errhandler* user = weft::mpi::user_errhandler_or_null(errhandler);
    if (user != nullptr && user->win_function == nullptr) {
      throw MpiError(MPI_ERR_ARG, "the error handler is not a window's");
    }
    w.errhandler = errhandler;
  });
}
WEFT_MPI_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  return win_call("MPI_Win_get_errhandler", win, [&] {
    const MPI_ABI_Win& w = window_of(win);
    require_pointer(errhandler, "errhandler");
    *errhandler = w.errhandler;
  });
}
WEFT_MPI_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  int rc = win_call("MPI_Win_call_errhandler", win, [&] { window_of(win); });
  if (rc != MPI_SUCCESS) return rc;
  // Having run the handler, the call itself succeeded.
  handle_win_error(win, "MPI_Win_call_errhandler", errorcode,
                   "the program raised this error on the window");
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Win_call_errhandler)

}  // extern "C"

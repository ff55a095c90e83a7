// Error handlers: the predefined ones (MPI_ERRORS_ARE_FATAL, the default,
// MPI_ERRORS_ABORT and MPI_ERRORS_RETURN; errors.cc applies them) and the program's own,
// made by MPI_Comm_create_errhandler. A user handler is called with the communicator and
// the error code, and when it returns, the failed call returns that code.
#include <string>

#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace weft::mpi {

bool is_predefined_errhandler(MPI_Errhandler errhandler) {
  return errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_RETURN ||
         errhandler == MPI_ERRORS_ABORT;
}

MPI_ABI_Errhandler* user_errhandler_or_null(MPI_Errhandler errhandler) {
  if (is_predefined_errhandler(errhandler)) return nullptr;
  auto address = reinterpret_cast<uintptr_t>(errhandler);
  if (errhandler == MPI_ERRHANDLER_NULL || address < 0x1000 ||
      errhandler->magic != MPI_ABI_Errhandler::kMagic) {
    throw MpiError(MPI_ERR_ERRHANDLER, errhandler == MPI_ERRHANDLER_NULL
                                           ? "the error handler is MPI_ERRHANDLER_NULL"
                                           : "not a valid error handler");
  }
  return errhandler;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                MPI_Errhandler* errhandler) {
  return mpi_call("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Comm_create_errhandler");
    if (function == nullptr) throw MpiError(MPI_ERR_ARG, "the function is NULL");
    // Never deleted: communicators keep the handle, and MPI_Errhandler_free only says
    // the program is done with it. The object is a pointer's size.
    auto* handler = new MPI_ABI_Errhandler();
    handler->function = function;
    *errhandler = handler;
  });
}
WEFT_MPI_ALIAS(Comm_create_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  return mpi_call("MPI_Errhandler_free", MPI_COMM_WORLD, [&] {
    weft::mpi::user_errhandler_or_null(*errhandler);  // MPI_ERR_ERRHANDLER for garbage
    *errhandler = MPI_ERRHANDLER_NULL;
  });
}
WEFT_MPI_ALIAS(Errhandler_free)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return mpi_call("MPI_Comm_set_errhandler", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_set_errhandler");
    MPI_ABI_Comm& c = weft::mpi::comm_of(comm);
    MPI_ABI_Errhandler* user = weft::mpi::user_errhandler_or_null(errhandler);
    if (user != nullptr && user->function == nullptr) {
      throw MpiError(MPI_ERR_ARG, "the error handler is a window's or a file's");
    }
    c.errhandler = errhandler;
  });
}
WEFT_MPI_ALIAS(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return mpi_call("MPI_Comm_get_errhandler", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_get_errhandler");
    *errhandler = weft::mpi::comm_of(comm).errhandler;
  });
}
WEFT_MPI_ALIAS(Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  int rc = mpi_call("MPI_Comm_call_errhandler", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_call_errhandler");
    weft::mpi::comm_of(comm);
  });
  if (rc != MPI_SUCCESS) return rc;
  // The handler runs as for a failure of a call on `comm`; having run, the call succeeded.
  weft::mpi::handle_error(comm, "MPI_Comm_call_errhandler", errorcode,
                          "the program raised this error on the communicator");
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Comm_call_errhandler)

}  // extern "C"

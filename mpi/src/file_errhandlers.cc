// The error handlers of files: each open file has its own, which starts as the one on
// MPI_FILE_NULL when the file is opened; MPI_FILE_NULL's (MPI_ERRORS_RETURN until the
// program sets another) also serves the failures that have no open file.
#include <cstdio>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/files.h"
#include "mpi/src/objects.h"

using weft::mpi::file_call;
using weft::mpi::file_null_errhandler;
using weft::mpi::file_of;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace weft::mpi {

MPI_ABI_File& file_of(MPI_File fh) {
  if (fh == MPI_FILE_NULL || fh == nullptr)
    throw MpiError(MPI_ERR_FILE, "the file is MPI_FILE_NULL");
  auto* f = reinterpret_cast<MPI_ABI_File*>(fh);
  // The predefined handles are small numbers, never the address of a file.
  if (reinterpret_cast<uintptr_t>(fh) < 0x10000 || f->magic != MPI_ABI_File::kMagic) {
    throw MpiError(MPI_ERR_FILE, "not a valid file handle (closed or garbage)");
  }
  return *f;
}

MPI_Errhandler& file_null_errhandler() {
  static MPI_Errhandler handler = MPI_ERRORS_RETURN;
  return handler;
}

int handle_file_error(MPI_File fh, const char* function, int error_class,
                      const std::string& message) {
  MPI_Errhandler handler = file_null_errhandler();
  MPI_File on = MPI_FILE_NULL;
  try {
    handler = file_of(fh).errhandler;
    on = fh;
  } catch (const MpiError&) {
    // Not an open file: MPI_FILE_NULL's handler applies.
  }
  return apply_file_handler(handler, on, function, error_class, message);
}

int apply_file_handler(MPI_Errhandler handler, MPI_File on, const char* function, int error_class,
                       const std::string& message) {
  return apply_errhandler(handler, function, error_class, message,
                          [&](MPI_Errhandler user, int& code) { user->file_function(&on, &code); });
}

}  // namespace weft::mpi

namespace {

// The handler slot of `file`: MPI_FILE_NULL's, or an open file's.
MPI_Errhandler& errhandler_slot(MPI_File file) {
  if (file == MPI_FILE_NULL) return file_null_errhandler();
  return file_of(file).errhandler;
}

}  // namespace

extern "C" {

int PMPI_File_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn,
                                MPI_Errhandler* errhandler) {
  return mpi_call("MPI_File_create_errhandler", MPI_COMM_WORLD, [&] {
    if (file_errhandler_fn == nullptr) throw MpiError(MPI_ERR_ARG, "file_errhandler_fn is NULL");
    require_pointer(errhandler, "errhandler");
    // Never deleted, as communicators' handlers are not (errhandlers.cc says why).
    auto* handler = new MPI_ABI_Errhandler();
    handler->file_function = file_errhandler_fn;
    *errhandler = handler;
  });
}
WEFT_MPI_ALIAS(File_create_errhandler)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  return file_call("MPI_File_set_errhandler", file, [&] {
    MPI_Errhandler& slot = errhandler_slot(file);
    MPI_ABI_Errhandler* user = weft::mpi::user_errhandler_or_null(errhandler);
    if (user != nullptr && user->file_function == nullptr) {
      throw MpiError(MPI_ERR_ARG, "the error handler is not a file's");
    }
    slot = errhandler;
  });
}
WEFT_MPI_ALIAS(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  return file_call("MPI_File_get_errhandler", file, [&] {
    MPI_Errhandler slot = errhandler_slot(file);
    require_pointer(errhandler, "errhandler");
    *errhandler = slot;
  });
}
WEFT_MPI_ALIAS(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  int rc = file_call("MPI_File_call_errhandler", fh, [&] { errhandler_slot(fh); });
  if (rc != MPI_SUCCESS) return rc;
  // Having run the handler, the call itself succeeded.
  weft::mpi::handle_file_error(fh, "MPI_File_call_errhandler", errorcode,
                               "the program raised this error on the file");
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(File_call_errhandler)

}  // extern "C"

#include "mpi/src/errors.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "mpi/src/objects.h"
#include "mpi/src/user_errors.h"
#include "weft/error.h"

namespace weft::mpi {

int error_class_of(const std::exception& e) {
  if (const auto* mpi = dynamic_cast<const MpiError*>(&e)) return mpi->error_class();
  if (const auto* error = dynamic_cast<const Error*>(&e)) {
    switch (error->code()) {
      case ErrorCode::kInvalidArgument:
        // The one argument error the core finds only when the message arrives.
        return std::strstr(e.what(), "receive buffer holds") ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
      case ErrorCode::kPeer:
        return MPI_ERR_PROC_ABORTED;
      case ErrorCode::kState:
        return MPI_ERR_OTHER;
      case ErrorCode::kTimeout:
      case ErrorCode::kDesync:
      case ErrorCode::kInternal:
        return MPI_ERR_OTHER;
    }
  }
  if (dynamic_cast<const std::bad_alloc*>(&e)) return MPI_ERR_NO_MEM;
  return MPI_ERR_INTERN;
}

const char* error_text(int error_class) {
  // Indexed by class: the standard numbers them 0 (MPI_SUCCESS) to 62 (MPI_ERR_ABI).
  static const char* const kTexts[] = {
      "MPI_SUCCESS: no error",
      "MPI_ERR_BUFFER: invalid buffer pointer",
      "MPI_ERR_COUNT: invalid count argument",
      "MPI_ERR_TYPE: invalid datatype",
      "MPI_ERR_TAG: invalid tag",
      "MPI_ERR_COMM: invalid communicator",
      "MPI_ERR_RANK: invalid rank",
      "MPI_ERR_REQUEST: invalid request",
      "MPI_ERR_ROOT: invalid root",
      "MPI_ERR_GROUP: invalid group",
      "MPI_ERR_OP: invalid reduction operation",
      "MPI_ERR_TOPOLOGY: invalid topology",
      "MPI_ERR_DIMS: invalid dimensions",
      "MPI_ERR_ARG: invalid argument",
      "MPI_ERR_UNKNOWN: unknown error",
      "MPI_ERR_TRUNCATE: message truncated",
      "MPI_ERR_OTHER: known error not in this list",
      "MPI_ERR_INTERN: internal error",
      "MPI_ERR_PENDING: pending request",
      "MPI_ERR_IN_STATUS: error code is in status",
      "MPI_ERR_ACCESS: permission denied",
      "MPI_ERR_AMODE: invalid file access mode",
      "MPI_ERR_ASSERT: invalid assertion",
      "MPI_ERR_BAD_FILE: invalid file name",
      "MPI_ERR_BASE: invalid base address",
      "MPI_ERR_CONVERSION: data conversion failed",
      "MPI_ERR_DISP: invalid displacement",
      "MPI_ERR_DUP_DATAREP: data representation already defined",
      "MPI_ERR_FILE_EXISTS: file exists",
      "MPI_ERR_FILE_IN_USE: file in use",
      "MPI_ERR_FILE: invalid file handle",
      "MPI_ERR_INFO_KEY: invalid info key",
      "MPI_ERR_INFO_NOKEY: no such info key",
      "MPI_ERR_INFO_VALUE: invalid info value",
      "MPI_ERR_INFO: invalid info object",
      "MPI_ERR_IO: I/O error",
      "MPI_ERR_KEYVAL: invalid keyval",
      "MPI_ERR_LOCKTYPE: invalid lock type",
      "MPI_ERR_NAME: no such published name",
      "MPI_ERR_NO_MEM: out of memory",
      "MPI_ERR_NOT_SAME: arguments not the same on every process",
      "MPI_ERR_NO_SPACE: out of space",
      "MPI_ERR_NO_SUCH_FILE: no such file",
      "MPI_ERR_PORT: invalid port",
      "MPI_ERR_QUOTA: quota exceeded",
      "MPI_ERR_READ_ONLY: read-only file or file system",
      "MPI_ERR_RMA_ATTACH: memory cannot be attached",
      "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
      "MPI_ERR_RMA_RANGE: target memory outside the window",
      "MPI_ERR_RMA_SHARED: memory cannot be shared",
      "MPI_ERR_RMA_SYNC: wrong synchronisation of RMA calls",
      "MPI_ERR_SERVICE: invalid service name",
      "MPI_ERR_SIZE: invalid size",
      "MPI_ERR_SPAWN: spawning processes failed",
      "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
      "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
      "MPI_ERR_WIN: invalid window",
      "MPI_ERR_RMA_FLAVOR: wrong window flavour",
      "MPI_ERR_PROC_ABORTED: a peer process was lost",
      "MPI_ERR_VALUE_TOO_LARGE: value too large to store",
      "MPI_ERR_SESSION: invalid session",
      "MPI_ERR_ERRHANDLER: invalid error handler",
      "MPI_ERR_ABI: ABI mismatch",
  };
  static_assert(sizeof kTexts / sizeof kTexts[0] == MPI_ERR_ABI + 1);
  if (error_class >= 0 && error_class <= MPI_ERR_ABI) return kTexts[error_class];
  if (const char* text = user_error_text(error_class)) return text;
  return nullptr;
}

[[noreturn]] void abort_process(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  // No destructors or atexit handlers: other threads of the core may still be running.
  _exit(code == 0 ? 1 : code);
}

void fail_fatally(const char* function, int error_class, const std::string& message) {
  const char* text = error_text(error_class);
  std::fprintf(stderr,
               "weft MPI: %s (rank %d): %s: %s; the error handler is MPI_ERRORS_ARE_FATAL, "
               "ending the job\n",
               function, world_rank_or_unknown(), text ? text : "an error code of the program",
               message.c_str());
  abort_process(error_class);
}

int handle_error(MPI_Comm comm, const char* function, int error_class, const std::string& message) {
  return apply_errhandler(errhandler_for(comm), function, error_class, message,
                          [&](MPI_Errhandler handler, int& code) {
                            MPI_Comm on = comm;
                            handler->function(&on, &code);
                          });
}

}  // namespace weft::mpi

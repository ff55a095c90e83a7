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
  switch (error_class) {
    case MPI_SUCCESS:
      return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER:
      return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT:
      return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE:
      return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG:
      return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM:
      return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK:
      return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST:
      return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT:
      return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP:
      return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP:
      return "MPI_ERR_OP: invalid reduction operation";
    case MPI_ERR_ARG:
      return "MPI_ERR_ARG: invalid argument";
    case MPI_ERR_UNKNOWN:
      return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE:
      return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER:
      return "MPI_ERR_OTHER: known error not in this list";
    case MPI_ERR_INTERN:
      return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_PENDING:
      return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_IN_STATUS:
      return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_NO_MEM:
      return "MPI_ERR_NO_MEM: out of memory";
    case MPI_ERR_PROC_ABORTED:
      return "MPI_ERR_PROC_ABORTED: a peer process was lost";
    case MPI_ERR_ERRHANDLER:
      return "MPI_ERR_ERRHANDLER: invalid error handler";
    default:
      break;
  }
  if (const char* text = user_error_text(error_class)) return text;
  return error_class > MPI_SUCCESS && error_class <= MPI_ERR_LASTCODE
             ? "an MPI error class weft does not raise"
             : nullptr;
}

[[noreturn]] void abort_process(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  // No destructors or atexit handlers: other threads of the core may still be running.
  _exit(code == 0 ? 1 : code);
}

int handle_error(MPI_Comm comm, const char* function, int error_class, const std::string& message) {
  MPI_Errhandler handler = errhandler_for(comm);
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (handler != MPI_ERRORS_ARE_FATAL && handler != MPI_ERRORS_ABORT) {
    // The program's own: it decides, and the call returns the code if it returns.
    MPI_Comm on = comm;
    int code = error_class;
    handler->function(&on, &code);
    return error_class;
  }
  std::string text = std::string(function) + " (rank " + std::to_string(world_rank_or_unknown()) +
                     "): " + error_text(error_class) + ": " + message;
  std::fprintf(stderr, "weft MPI: %s; the error handler is MPI_ERRORS_ARE_FATAL, ending the job\n",
               text.c_str());
  abort_process(error_class);
}

}  // namespace weft::mpi

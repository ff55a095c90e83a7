// How the MPI functions report failures. Each function body runs inside mpi_call(),
// which turns an exception into the standard's error class and hands it to the
// communicator's error handler: MPI_ERRORS_RETURN returns the class (weft's error codes
// are the classes), MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print the message, which
// names the function, the rank and the argument at fault, and end the process, which
// ends the job (weftrun stops the other ranks, and peers see the rank gone). A user
// error handler (MPI_Comm_create_errhandler) is called, and the class returned if it
// returns.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace weft::mpi {

// A failure of an MPI call, with its error class.
class MpiError : public std::runtime_error {
 public:
  MpiError(int error_class, const std::string& message)
      : std::runtime_error(message), class_(error_class) {}
  int error_class() const noexcept { return class_; }

 private:
  int class_;
};

// The class of any exception the core may throw.
int error_class_of(const std::exception& e);

// "MPI_ERR_RANK: invalid rank"
const char* error_text(int error_class);

// Applies `comm`'s error handler to a failure of `function`: returns the class or
// does not return.
int handle_error(MPI_Comm comm, const char* function, int error_class, const std::string& message);

// Ends the process as MPI_Abort does, after flushing what it printed.
[[noreturn]] void abort_process(int code);

// Prints why `function` failed and ends the job: what MPI_ERRORS_ARE_FATAL and
// MPI_ERRORS_ABORT do.
[[noreturn]] void fail_fatally(const char* function, int error_class, const std::string& message);

// Applies `handler` to a failure of `function`, whatever the object it is attached to
// (communicator, window, file, session): MPI_ERRORS_RETURN returns the class, the
// fatal ones do not return, and a program's own handler is called through
// `call_user(handler, code)`, after which the class is returned.
template <typename CallUser>
int apply_errhandler(MPI_Errhandler handler, const char* function, int error_class,
                     const std::string& message, CallUser&& call_user) {
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_ABORT) {
    fail_fatally(function, error_class, message);
  }
  int code = error_class;
  call_user(handler, code);
  return error_class;
}

// What a function weft does not carry out does (mpi/abi/refusals.py generates the
// callers): reports `error_class` on `comm` as any failure is reported, and when the
// handler returns, says once per function on stderr why, since an error class alone
// cannot.
int refuse(const char* function, int error_class, MPI_Comm comm, const char* why);

template <typename Body>
int mpi_call(const char* function, MPI_Comm comm, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& e) {
    return handle_error(comm, function, error_class_of(e), e.what());
  }
}

}  // namespace weft::mpi

// The error classes, codes and strings the program adds (MPI_Add_error_class and the
// rest). Their numbers start above MPI_ERR_LASTCODE, so they never collide with the
// standard's classes, which are weft's own codes.
#pragma once

namespace weft::mpi {

// The largest error code or class in use (MPI_LASTUSEDCODE): MPI_ERR_LASTCODE until
// the program adds its own.
int last_used_error_code();

// The string of an error class or code the program added ("" until it sets one), or
// nullptr when `code` is not one of them.
const char* user_error_text(int code);

// The class of an error code or class the program added, or -1 when `code` is not one.
int user_error_class(int code);

}  // namespace weft::mpi

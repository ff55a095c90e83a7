// Completing requests: what MPI_Wait and its relatives share.
#pragma once

#include <mpi.h>

namespace weft::mpi {

// Whether the operation behind `request` (not MPI_REQUEST_NULL) has finished.
bool is_done(MPI_Request request);

// MPI_REQUEST_NULL, or a persistent request not started: the wait and test functions
// pass over both.
bool is_inactive(MPI_Request request);

// Waits for `*request`, fills `status`, frees the request and sets it to
// MPI_REQUEST_NULL (a persistent one becomes inactive instead); an inactive request
// gives the empty status. Throws the operation's error, after freeing the request.
void complete(MPI_Request* request, MPI_Status* status);

}  // namespace weft::mpi

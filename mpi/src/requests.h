// Completing requests: what MPI_Wait and its relatives share.
#pragma once

#include <mpi.h>

#include "weft/timeout.h"

namespace weft::mpi {

// Whether the operation behind `request` (not MPI_REQUEST_NULL) has finished.
bool is_done(MPI_Request request);

// MPI_REQUEST_NULL, or a persistent request not started: the wait and test functions
// pass over both.
bool is_inactive(MPI_Request request);

// Waits for `*request` (at most `timeout` for each weft operation behind it), fills
// `status`, frees the request and sets it to MPI_REQUEST_NULL (a persistent one becomes
// inactive instead); an inactive request gives the empty status. Throws the
// operation's error, after freeing the request.
void complete(MPI_Request* request, MPI_Status* status,
              weft::Timeout timeout = weft::kDefaultTimeout);

// The communicator whose error handler applies to a failure of `request`
// (MPI_COMM_WORLD for a null or invalid one).
MPI_Comm comm_of_request(MPI_Request request);

// statuses[i], or MPI_STATUS_IGNORE when `statuses` is MPI_STATUSES_IGNORE.
MPI_Status* status_at(MPI_Status statuses[], int i);

// One pause of a loop that polls for something no weft wait can sleep on (a
// generalized request, which another thread of the program completes): a yield for the
// first rounds, then a short sleep, so that a long wait neither burns a core nor
// answers late.
void pause_polling(int round);

}  // namespace weft::mpi

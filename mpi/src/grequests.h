// Generalized requests (MPI_Grequest_start): operations the program carries out itself,
// which the wait and test functions complete like any other once the program calls
// MPI_Grequest_complete. requests.cc calls these hooks for a request whose
// `generalized` is set.
#pragma once

#include <mpi.h>

#include <atomic>
#include <mutex>

namespace weft::mpi {

struct Grequest {
  MPI_Grequest_query_function* query_fn = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel_fn = nullptr;
  void* extra_state = nullptr;
  std::mutex mutex;  // orders MPI_Grequest_complete against MPI_Request_free
  std::atomic<bool> completed = false;
  bool freed = false;  // MPI_Request_free came first: MPI_Grequest_complete frees
};

// Whether MPI_Grequest_complete was called.
bool grequest_done(const Grequest& g);

// The status of a completed one, from the query callback; throws the callback's error.
void grequest_status(Grequest& g, MPI_Status* status);

// Waits for MPI_Grequest_complete, fills `status` with the query callback, calls the
// free callback and frees the request. Throws the first callback error, after freeing.
void complete_grequest(MPI_Request* request, MPI_Status* status);

// MPI_Request_free: the free callback runs now if the request completed, else when it
// does; the handle is MPI_REQUEST_NULL either way.
void free_grequest(MPI_Request* request);

// MPI_Cancel: the cancel callback, told whether the request completed.
void cancel_grequest(Grequest& g);

}  // namespace weft::mpi

// Checks of the arguments MPI functions share, each throwing MpiError with the class the
// standard gives it and a message naming the argument and its value.
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include <cstdint>

#include "mpi/src/datatypes.h"
#include "mpi/src/objects.h"

namespace weft::mpi {

// MPI_ERR_ARG, naming `what`, for a NULL array or output argument.
void require_pointer(const void* pointer, const char* what);

// A rank of `comm` for the core; MPI_ERR_RANK unless 0 <= rank < size (or, where
// `any_allowed`, MPI_ANY_SOURCE). The caller handles MPI_PROC_NULL first.
// On an intercommunicator, `rank` is one of the remote group.
int core_rank(const MPI_ABI_Comm& comm, int rank, bool any_allowed, const char* what);
// The inverse, for a status: the rank of `comm` (of its remote group on an
// intercommunicator) of the core's source rank `core_source`.
int comm_source(const MPI_ABI_Comm& comm, int core_source);

// A tag for the core; MPI_ERR_TAG unless >= 0 (or, where `any_allowed`, MPI_ANY_TAG).
int core_tag(int tag, bool any_allowed);

// A root of `comm`; MPI_ERR_ROOT unless 0 <= root < size.
int checked_root(const MPI_ABI_Comm& comm, int root);

// Statuses: the count lives in MPI_internal[0..1] (bytes), the cancelled flag in [2].
void set_status(MPI_Status* status, int source, int tag, uint64_t bytes);
void set_empty_status(MPI_Status* status);      // a null request's: any source and tag
void set_proc_null_status(MPI_Status* status);  // MPI_PROC_NULL's
uint64_t status_bytes(const MPI_Status& status);
void set_cancelled(MPI_Status* status);  // MPI_Test_cancelled then says so
bool status_cancelled(const MPI_Status& status);

}  // namespace weft::mpi

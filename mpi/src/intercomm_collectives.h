// The collectives on an intercommunicator (the standard's "intercommunicator collective
// operations"). Every form of a collective, classic or large-count (_c), blocking,
// non-blocking or persistent (_init), starts through its start_* function
// (collective_starts.h), which hands the call here when the communicator is an
// intercommunicator; so the forms share one implementation, with 64-bit counts
// (CountArray reads the classic forms' int arrays and the _c forms' MPI_Count and
// MPI_Aint ones alike). Each starts the operation as start_* does: `async` starts the
// core's non-blocking operation instead of running the blocking one.
#pragma once

#include <mpi.h>

#include "mpi/src/count_array.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"

namespace weft::mpi {

Started intercomm_barrier(const MPI_ABI_Comm& c, bool async);
Started intercomm_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        const MPI_ABI_Comm& c, bool async);
Started intercomm_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         const MPI_ABI_Comm& c, bool async);
Started intercomm_gatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, CountArray recvcounts, CountArray displs,
                          MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async);
Started intercomm_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          const MPI_ABI_Comm& c, bool async);
Started intercomm_scatterv(const void* sendbuf, CountArray sendcounts, CountArray displs,
                           MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async);
Started intercomm_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            const MPI_ABI_Comm& c, bool async);
Started intercomm_allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, CountArray recvcounts, CountArray displs,
                             MPI_Datatype recvtype, const MPI_ABI_Comm& c, bool async);
Started intercomm_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           const MPI_ABI_Comm& c, bool async);
Started intercomm_alltoallv(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                            MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts,
                            CountArray rdispls, MPI_Datatype recvtype, const MPI_ABI_Comm& c,
                            bool async);
Started intercomm_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, int root, const MPI_ABI_Comm& c, bool async);
Started intercomm_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c, bool async);
// `recvcounts` has one count per rank of the local group.
Started intercomm_reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts,
                                 MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                 bool async);
Started intercomm_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                       bool async);

// Whether this process is the root of a rooted collective whose root argument is `root`
// (MPI_ROOT); MPI_ERR_ROOT unless `root` is MPI_ROOT, MPI_PROC_NULL or a remote rank.
// The persistent forms ask at init which of their arrays this process reads.
bool intercomm_is_root(const MPI_ABI_Comm& c, int root);

// The size of the group whose members a collective on `c` exchanges blocks with: the
// remote group's for an intercommunicator, the whole group's otherwise.
int peer_count(const MPI_ABI_Comm& c);

}  // namespace weft::mpi

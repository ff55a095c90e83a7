// The collectives as the MPI functions start them, shared by every entry point of each:
// the blocking and non-blocking forms, their large-count (_c) variants and the
// persistent (_init) ones. Counts are 64-bit whatever the entry point took (CountArray
// reads an int array or an MPI_Count one); `async` starts the core's non-blocking
// operation instead of running the blocking one. On an intercommunicator each hands the
// call to its intercommunicator form (intercomm_collectives.h), but Scan and Exscan,
// which refuse it with MPI_ERR_COMM. Defined in collectives.cc and collectives_v.cc
// (the _block reduce-scatter in collectives_large_count.cc, Alltoallw in alltoallw.cc).
#pragma once

#include <mpi.h>

#include "mpi/src/count_array.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"

namespace weft::mpi {

Started start_barrier(const MPI_ABI_Comm& c, bool async);
Started start_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                    const MPI_ABI_Comm& c, bool async);
// The reduction of every rank's `input` into `output` on every rank (root < 0) or on
// `root` only; the caller resolves MPI_IN_PLACE. Intracommunicators only: the
// reductions' entry points call start_allreduce and start_rooted_reduce.
Started start_reduce(const void* input, void* output, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, const MPI_ABI_Comm& c, bool async);
// MPI_Allreduce's: resolves MPI_IN_PLACE.
Started start_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, const MPI_ABI_Comm& c, bool async);
// MPI_Reduce's: checks the root and resolves MPI_IN_PLACE (the root's alone).
Started start_rooted_reduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, int root, const MPI_ABI_Comm& c,
                            bool async);
Started start_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c,
                     bool async);
Started start_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      const MPI_ABI_Comm& c, bool async);
Started start_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                        const MPI_ABI_Comm& c, bool async);
Started start_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       const MPI_ABI_Comm& c, bool async);

Started start_gatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, CountArray recvcounts, CountArray displs,
                      MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async);
Started start_scatterv(const void* sendbuf, CountArray sendcounts, CountArray displs,
                       MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async);
Started start_allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, CountArray recvcounts, CountArray displs,
                         MPI_Datatype recvtype, const MPI_ABI_Comm& c, bool async);
Started start_alltoallv(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                        MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts,
                        CountArray rdispls, MPI_Datatype recvtype, const MPI_ABI_Comm& c,
                        bool async);
// MPI_Alltoallw's: displacements in bytes, a datatype per peer (alltoallw.cc).
Started start_alltoallw(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                        const MPI_Datatype sendtypes[], void* recvbuf, CountArray recvcounts,
                        CountArray rdispls, const MPI_Datatype recvtypes[], const MPI_ABI_Comm& c,
                        bool async);
// MPI_Reduce_scatter's; the _block form passes one count per rank, all the same.
Started start_reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts,
                             MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c, bool async);
// MPI_Reduce_scatter_block's: `recvcount` for every rank.
Started start_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                   MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                   bool async);
// MPI_Scan's (inclusive) and MPI_Exscan's.
Started start_scan(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, bool inclusive, const MPI_ABI_Comm& c, bool async);

}  // namespace weft::mpi

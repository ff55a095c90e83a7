// The collectives on an intercommunicator (the standard's "intercommunicator collective
// operations"): each existing collective function hands its call here first when the
// communicator is one. `request` is the non-blocking form's (MPI_Ibcast's); nullptr
// means the blocking form. Each returns as the MPI function does.
#pragma once

#include <mpi.h>

namespace weft::mpi {

int intercomm_barrier(MPI_Comm comm, MPI_Request* request);
int intercomm_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Request* request);
int intercomm_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request* request);
int intercomm_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request);
int intercomm_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request* request);
int intercomm_scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Request* request);
int intercomm_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int intercomm_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request);
int intercomm_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int intercomm_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request* request);
int intercomm_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Request* request);
int intercomm_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request* request);
int intercomm_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
int intercomm_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request* request);
// MPI_Scan and MPI_Exscan (and their non-blocking forms), which the standard defines
// on intracommunicators only: MPI_ERR_COMM.
int intercomm_refused(const char* function, MPI_Comm comm);

}  // namespace weft::mpi

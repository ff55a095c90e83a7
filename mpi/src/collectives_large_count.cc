// The large-count (_c) forms of the collectives, blocking and non-blocking: counts are
// MPI_Count and displacements MPI_Aint, and they run the very same operations as the
// classic forms (collectives.cc, collectives_v.cc), whose internals take 64-bit counts,
// on intercommunicators too (intercomm_collectives.cc).
#include <vector>

#include "mpi/src/collective_starts.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm_collectives.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"

using weft::mpi::as_request;
using weft::mpi::communicator;
using weft::mpi::mpi_call;
using weft::mpi::start_allgather;
using weft::mpi::start_allgatherv;
using weft::mpi::start_allreduce;
using weft::mpi::start_alltoall;
using weft::mpi::start_alltoallv;
using weft::mpi::start_bcast;
using weft::mpi::start_gather;
using weft::mpi::start_gatherv;
using weft::mpi::start_reduce_scatter;
using weft::mpi::start_reduce_scatter_block;
using weft::mpi::start_rooted_reduce;
using weft::mpi::start_scan;
using weft::mpi::start_scatter;
using weft::mpi::start_scatterv;
using weft::mpi::wait_for;

namespace weft::mpi {

Started start_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                   MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                   bool async) {
  if (c.inter) {
    return intercomm_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, c, async);
  }
  std::vector<MPI_Count> counts(static_cast<size_t>(c.group.size()), recvcount);
  return start_reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, c, async);
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Bcast_c", comm, [&] {
    wait_for(start_bcast(buffer, count, datatype, root, communicator(comm, "MPI_Bcast_c"), false));
  });
}
WEFT_MPI_ALIAS(Bcast_c)

int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return mpi_call("MPI_Ibcast_c", comm, [&] {
    *request = as_request(
        start_bcast(buffer, count, datatype, root, communicator(comm, "MPI_Ibcast_c"), true), comm);
  });
}
WEFT_MPI_ALIAS(Ibcast_c)

int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Gather_c", comm, [&] {
    wait_for(start_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          communicator(comm, "MPI_Gather_c"), false));
  });
}
WEFT_MPI_ALIAS(Gather_c)

int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  return mpi_call("MPI_Igather_c", comm, [&] {
    *request = as_request(start_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, communicator(comm, "MPI_Igather_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Igather_c)

int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  return mpi_call("MPI_Gatherv_c", comm, [&] {
    wait_for(start_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, communicator(comm, "MPI_Gatherv_c"), false));
  });
}
WEFT_MPI_ALIAS(Gatherv_c)

int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Igatherv_c", comm, [&] {
    *request = as_request(start_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, root, communicator(comm, "MPI_Igatherv_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Igatherv_c)

int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Scatter_c", comm, [&] {
    wait_for(start_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           communicator(comm, "MPI_Scatter_c"), false));
  });
}
WEFT_MPI_ALIAS(Scatter_c)

int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  return mpi_call("MPI_Iscatter_c", comm, [&] {
    *request = as_request(start_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, communicator(comm, "MPI_Iscatter_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iscatter_c)

int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Scatterv_c", comm, [&] {
    wait_for(start_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, communicator(comm, "MPI_Scatterv_c"), false));
  });
}
WEFT_MPI_ALIAS(Scatterv_c)

int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iscatterv_c", comm, [&] {
    *request =
        as_request(start_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root, communicator(comm, "MPI_Iscatterv_c"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Iscatterv_c)

int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Allgather_c", comm, [&] {
    wait_for(start_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             communicator(comm, "MPI_Allgather_c"), false));
  });
}
WEFT_MPI_ALIAS(Allgather_c)

int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  return mpi_call("MPI_Iallgather_c", comm, [&] {
    *request = as_request(start_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, communicator(comm, "MPI_Iallgather_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iallgather_c)

int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Allgatherv_c", comm, [&] {
    wait_for(start_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              communicator(comm, "MPI_Allgatherv_c"), false));
  });
}
WEFT_MPI_ALIAS(Allgatherv_c)

int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iallgatherv_c", comm, [&] {
    *request =
        as_request(start_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, communicator(comm, "MPI_Iallgatherv_c"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Iallgatherv_c)

int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Alltoall_c", comm, [&] {
    wait_for(start_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            communicator(comm, "MPI_Alltoall_c"), false));
  });
}
WEFT_MPI_ALIAS(Alltoall_c)

int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  return mpi_call("MPI_Ialltoall_c", comm, [&] {
    *request = as_request(start_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         communicator(comm, "MPI_Ialltoall_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ialltoall_c)

int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Alltoallv_c", comm, [&] {
    wait_for(start_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, communicator(comm, "MPI_Alltoallv_c"), false));
  });
}
WEFT_MPI_ALIAS(Alltoallv_c)

int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  return mpi_call("MPI_Ialltoallv_c", comm, [&] {
    *request =
        as_request(start_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, communicator(comm, "MPI_Ialltoallv_c"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Ialltoallv_c)

int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm) {
  return mpi_call("MPI_Reduce_c", comm, [&] {
    wait_for(start_rooted_reduce(sendbuf, recvbuf, count, datatype, op, root,
                                 communicator(comm, "MPI_Reduce_c"), false));
  });
}
WEFT_MPI_ALIAS(Reduce_c)

int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ireduce_c", comm, [&] {
    *request = as_request(start_rooted_reduce(sendbuf, recvbuf, count, datatype, op, root,
                                              communicator(comm, "MPI_Ireduce_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ireduce_c)

int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Allreduce_c", comm, [&] {
    wait_for(start_allreduce(sendbuf, recvbuf, count, datatype, op,
                             communicator(comm, "MPI_Allreduce_c"), false));
  });
}
WEFT_MPI_ALIAS(Allreduce_c)

int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iallreduce_c", comm, [&] {
    *request = as_request(start_allreduce(sendbuf, recvbuf, count, datatype, op,
                                          communicator(comm, "MPI_Iallreduce_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iallreduce_c)

int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Reduce_scatter_c", comm, [&] {
    wait_for(start_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                  communicator(comm, "MPI_Reduce_scatter_c"), false));
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_c)

int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ireduce_scatter_c", comm, [&] {
    *request = as_request(start_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                               communicator(comm, "MPI_Ireduce_scatter_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ireduce_scatter_c)

int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Reduce_scatter_block_c", comm, [&] {
    wait_for(start_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                        communicator(comm, "MPI_Reduce_scatter_block_c"), false));
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_block_c)

int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  return mpi_call("MPI_Ireduce_scatter_block_c", comm, [&] {
    *request = as_request(
        start_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                   communicator(comm, "MPI_Ireduce_scatter_block_c"), true),
        comm);
  });
}
WEFT_MPI_ALIAS(Ireduce_scatter_block_c)

int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Scan_c", comm, [&] {
    wait_for(start_scan(sendbuf, recvbuf, count, datatype, op, true,
                        communicator(comm, "MPI_Scan_c"), false));
  });
}
WEFT_MPI_ALIAS(Scan_c)

int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iscan_c", comm, [&] {
    *request = as_request(start_scan(sendbuf, recvbuf, count, datatype, op, true,
                                     communicator(comm, "MPI_Iscan_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iscan_c)

int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Exscan_c", comm, [&] {
    wait_for(start_scan(sendbuf, recvbuf, count, datatype, op, false,
                        communicator(comm, "MPI_Exscan_c"), false));
  });
}
WEFT_MPI_ALIAS(Exscan_c)

int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iexscan_c", comm, [&] {
    *request = as_request(start_scan(sendbuf, recvbuf, count, datatype, op, false,
                                     communicator(comm, "MPI_Iexscan_c"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iexscan_c)

}  // extern "C"

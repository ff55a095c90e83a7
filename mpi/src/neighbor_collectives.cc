// The neighbourhood collectives (MPI_Neighbor_allgather, _allgatherv, _alltoall,
// _alltoallv, _alltoallw): blocking, non-blocking (MPI_Ineighbor_*) and persistent
// (MPI_Neighbor_*_init), each with its large-count form (_c: MPI_Count counts, MPI_Aint
// displacements). The arguments are checked into a NeighborExchange, which the blocking
// form runs at once, the non-blocking one starts, and the persistent one starts anew at
// each MPI_Start.
#include <cstdint>
#include <memory>
#include <string>

#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/neighbor_exchange.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"
#include "mpi/src/topology.h"

using weft::mpi::BlockAt;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::NeighborBlock;
using weft::mpi::NeighborExchange;

namespace {

enum class Mode { kBlocking, kNonblocking, kPersistent };

// A block of `count` elements of `typemap`, `offset` bytes after `buf`. MPI_ERR_COUNT
// for a negative count, naming `what` and the neighbour.
NeighborBlock block(const void* buf, int64_t offset, int64_t count,
                    const std::shared_ptr<const weft::mpi::Typemap>& typemap, const char* what,
                    size_t k) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, std::string(what) + " count " + std::to_string(count) +
                                      " of neighbour " + std::to_string(k) + " is negative");
  }
  return {reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(offset),
          static_cast<uint64_t>(count), typemap};
}

// The typemap of a committed datatype (MPI_ERR_TYPE otherwise).
std::shared_ptr<const weft::mpi::Typemap> checked_type(MPI_Datatype type, const char* what) {
  weft::mpi::check_committed(type, what);
  return weft::mpi::typemap_of(type, what);
}

// The neighbourhood collectives have no in-place form.
const void* not_in_place(const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE) {
    throw MpiError(MPI_ERR_BUFFER, std::string(what) +
                                       " buffer is MPI_IN_PLACE, which neighbourhood "
                                       "collectives do not allow");
  }
  return buf;
}

// The same `count` elements for every neighbour (Neighbor_allgather's send side).
template <typename Count>
BlockAt same(const void* buf, Count count, MPI_Datatype type, const char* what) {
  auto typemap = checked_type(type, what);
  not_in_place(buf, what);
  return [=](size_t k) { return block(buf, 0, count, typemap, what, k); };
}

// Block k of `count` elements right after block k - 1 (Neighbor_alltoall, and
// Neighbor_allgather's receive side).
template <typename Count>
BlockAt consecutive(const void* buf, Count count, MPI_Datatype type, const char* what) {
  auto typemap = checked_type(type, what);
  not_in_place(buf, what);
  return [=](size_t k) {
    int64_t offset = static_cast<int64_t>(k) * static_cast<int64_t>(count) * typemap->extent;
    return block(buf, offset, count, typemap, what, k);
  };
}

// Block k of counts[k] elements, displs[k] extents into the buffer (the v forms).
template <typename Count, typename Displ>
BlockAt varying(const void* buf, const Count counts[], const Displ displs[], MPI_Datatype type,
                const char* what) {
  auto typemap = checked_type(type, what);
  not_in_place(buf, what);
  return [=](size_t k) {
    if (counts == nullptr || displs == nullptr) {
      throw MpiError(MPI_ERR_ARG, std::string(what) + " counts or displacements are NULL");
    }
    return block(buf, static_cast<int64_t>(displs[k]) * typemap->extent, counts[k], typemap, what,
                 k);
  };
}

// Block k of counts[k] elements of types[k], displs[k] bytes into the buffer (the w forms).
template <typename Count>
BlockAt typed(const void* buf, const Count counts[], const MPI_Aint displs[],
              const MPI_Datatype types[], const char* what) {
  not_in_place(buf, what);
  return [=](size_t k) {
    if (counts == nullptr || displs == nullptr || types == nullptr) {
      throw MpiError(MPI_ERR_ARG, std::string(what) + " counts, displacements or types are NULL");
    }
    return block(buf, displs[k], counts[k], checked_type(types[k], what), what, k);
  };
}

// Checks the arguments and runs, starts, or prepares the exchange as `mode` asks.
void run(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request, const BlockAt& send,
         const BlockAt& receive) {
  const MPI_ABI_Comm& c = weft::mpi::communicator(comm, function);
  const weft::mpi::Topology& topology = weft::mpi::topology_of(c, MPI_UNDEFINED);
  if (mode != Mode::kBlocking && request == nullptr) {
    throw MpiError(MPI_ERR_ARG, "request is NULL");
  }
  auto exchange = std::make_shared<NeighborExchange>(c, topology, send, receive);
  switch (mode) {
    case Mode::kBlocking:
      exchange->start(false);
      exchange->finish();
      return;
    case Mode::kNonblocking: {
      weft::mpi::Started started;
      started.request = exchange->start(true);
      started.keep(exchange);
      started.then([exchange] { exchange->finish(); });
      *request = weft::mpi::as_request(std::move(started), comm);
      return;
    }
    case Mode::kPersistent: {
      auto* r = new MPI_ABI_Request();
      r->comm = comm;
      r->collective = true;
      r->more().keep_alive = exchange;
      r->more().restart = [exchange](MPI_ABI_Request& started) {
        started.request = exchange->start(true);
        started.more().finish = [exchange] { exchange->finish(); };
      };
      *request = r;
      return;
    }
  }
}

// Each collective's entry points (blocking, non-blocking and persistent, each with its
// _c form) differ only in their name, mode and count types: one of these serves them.
template <typename Count>
int allgather(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request,
              const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              Count recvcount, MPI_Datatype recvtype) {
  return mpi_call(function, comm, [&] {
    run(function, comm, mode, request, same(sendbuf, sendcount, sendtype, "send"),
        consecutive(recvbuf, recvcount, recvtype, "receive"));
  });
}

template <typename Count, typename Displ>
int allgatherv(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request,
               const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype) {
  return mpi_call(function, comm, [&] {
    run(function, comm, mode, request, same(sendbuf, sendcount, sendtype, "send"),
        varying(recvbuf, recvcounts, displs, recvtype, "receive"));
  });
}

template <typename Count>
int alltoall(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request,
             const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             Count recvcount, MPI_Datatype recvtype) {
  return mpi_call(function, comm, [&] {
    run(function, comm, mode, request, consecutive(sendbuf, sendcount, sendtype, "send"),
        consecutive(recvbuf, recvcount, recvtype, "receive"));
  });
}

template <typename Count, typename Displ>
int alltoallv(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request,
              const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[], const Displ rdispls[],
              MPI_Datatype recvtype) {
  return mpi_call(function, comm, [&] {
    run(function, comm, mode, request, varying(sendbuf, sendcounts, sdispls, sendtype, "send"),
        varying(recvbuf, recvcounts, rdispls, recvtype, "receive"));
  });
}

template <typename Count>
int alltoallw(const char* function, MPI_Comm comm, Mode mode, MPI_Request* request,
              const void* sendbuf, const Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[]) {
  return mpi_call(function, comm, [&] {
    run(function, comm, mode, request, typed(sendbuf, sendcounts, sdispls, sendtypes, "send"),
        typed(recvbuf, recvcounts, rdispls, recvtypes, "receive"));
  });
}

}  // namespace

extern "C" {
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather", comm, Mode::kNonblocking, request, sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_allgather)

int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return allgather("MPI_Neighbor_allgather_init", comm, Mode::kPersistent, request, sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgather_init)

int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather_c", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgather_c)

int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather_c", comm, Mode::kNonblocking, request, sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_allgather_c)

int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return allgather("MPI_Neighbor_allgather_init_c", comm, Mode::kPersistent, request, sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgather_init_c)

int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                    sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv", comm, Mode::kNonblocking, request, sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_allgatherv)

int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  (void)info;  // no hints are used
  return allgatherv("MPI_Neighbor_allgatherv_init", comm, Mode::kPersistent, request, sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgatherv_init)

int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv_c", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                    sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgatherv_c)

int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv_c", comm, Mode::kNonblocking, request, sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_allgatherv_c)

int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return allgatherv("MPI_Neighbor_allgatherv_init_c", comm, Mode::kPersistent, request, sendbuf,
                    sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_allgatherv_init_c)

int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall", comm, Mode::kNonblocking, request, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_alltoall)

int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoall("MPI_Neighbor_alltoall_init", comm, Mode::kPersistent, request, sendbuf,
                  sendcount, sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall_c", comm, Mode::kBlocking, nullptr, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoall_c)

int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall_c", comm, Mode::kNonblocking, request, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_alltoall_c)

int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoall("MPI_Neighbor_alltoall_init_c", comm, Mode::kPersistent, request, sendbuf,
                  sendcount, sendtype, recvbuf, recvcount, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoall_init_c)

int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv", comm, Mode::kBlocking, nullptr, sendbuf, sendcounts,
                   sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  return alltoallv("MPI_Ineighbor_alltoallv", comm, Mode::kNonblocking, request, sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoallv("MPI_Neighbor_alltoallv_init", comm, Mode::kPersistent, request, sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv_c", comm, Mode::kBlocking, nullptr, sendbuf, sendcounts,
                   sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoallv_c)

int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv("MPI_Ineighbor_alltoallv_c", comm, Mode::kNonblocking, request, sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Ineighbor_alltoallv_c)

int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoallv("MPI_Neighbor_alltoallv_init_c", comm, Mode::kPersistent, request, sendbuf,
                   sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}
WEFT_MPI_ALIAS(Neighbor_alltoallv_init_c)

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw", comm, Mode::kBlocking, nullptr, sendbuf, sendcounts,
                   sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request* request) {
  return alltoallw("MPI_Ineighbor_alltoallw", comm, Mode::kNonblocking, request, sendbuf,
                   sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Ineighbor_alltoallw)

int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoallw("MPI_Neighbor_alltoallw_init", comm, Mode::kPersistent, request, sendbuf,
                   sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Neighbor_alltoallw_init)

int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw_c", comm, Mode::kBlocking, nullptr, sendbuf, sendcounts,
                   sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Neighbor_alltoallw_c)

int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request* request) {
  return alltoallw("MPI_Ineighbor_alltoallw_c", comm, Mode::kNonblocking, request, sendbuf,
                   sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Ineighbor_alltoallw_c)

int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  (void)info;  // no hints are used
  return alltoallw("MPI_Neighbor_alltoallw_init_c", comm, Mode::kPersistent, request, sendbuf,
                   sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
}
WEFT_MPI_ALIAS(Neighbor_alltoallw_init_c)

}  // extern "C"

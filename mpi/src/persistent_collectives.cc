// Persistent collectives (MPI-4): MPI_Bcast_init and the rest bind their arguments to a
// request; each MPI_Start runs the operation anew as its non-blocking form does, and
// completing it leaves the request allocated and inactive until the next start or
// MPI_Request_free (the restart hook persistent point-to-point uses, persistent.cc).
// On an intercommunicator each start runs the intercommunicator form (through start_*).
// The count, displacement and datatype arrays are copied at init, so later changes to
// the program's arrays do not reach the operation. The info argument carries hints only,
// none of which weft needs.
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/collective_starts.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/intercomm_collectives.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"

using weft::mpi::communicator;
using weft::mpi::CountArray;
using weft::mpi::mpi_call;
using weft::mpi::Started;

namespace {

using Start = std::function<Started(const MPI_ABI_Comm&)>;

// A persistent request that runs `start` at each MPI_Start. The communicator is looked
// up again then, so one freed in between is an error rather than a dangling reference.
MPI_Request persistent_collective(MPI_Comm comm, const char* function, Start start) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->collective = true;
  r->more().restart = [comm, function, start = std::move(start)](MPI_ABI_Request& request) {
    Started started = start(communicator(comm, function));
    request.request = started.request;
    request.more().keep_alive = std::move(started.keep_alive);
    request.more().finish = nullptr;
    // An operation with nothing to wait for (one rank, no data) completes at once.
    request.proc_null = !started.request.valid();
    if (request.proc_null) {
      if (started.finish) started.finish();
    } else {
      request.more().finish = std::move(started.finish);
    }
  };
  return r;
}

// The derived datatypes an operation uses, as duplicates of its own: the program may
// free its handles once the request exists, as it may while any operation is pending.
// (A user-defined operation is then handed the duplicate's handle.)
class HeldTypes {
 public:
  HeldTypes() = default;
  HeldTypes(const HeldTypes&) = delete;
  HeldTypes& operator=(const HeldTypes&) = delete;
  ~HeldTypes() {
    for (MPI_Datatype& type : owned_) {
      try {
        weft::mpi::free_datatype(&type);
      } catch (const std::exception&) {
      }
    }
  }
  // The handle to use from now on for `type`.
  MPI_Datatype hold(MPI_Datatype type) {
    if (!weft::mpi::is_derived(type)) return type;
    owned_.push_back(weft::mpi::make_dup(type));
    return owned_.back();
  }
  std::vector<MPI_Datatype> hold(std::vector<MPI_Datatype> types) {
    for (MPI_Datatype& type : types) type = hold(type);
    return types;
  }

 private:
  std::vector<MPI_Datatype> owned_;
};

// How many entries the operation reads of a per-peer array (counts, displacements,
// datatypes): one per rank of the communicator, or of the remote group of an
// intercommunicator. Checks the handle at init.
int peers_of(MPI_Comm comm, const char* function) {
  return weft::mpi::peer_count(communicator(comm, function));
}

// Whether this rank is `root` (on an intercommunicator: passes MPI_ROOT), checking the
// root at init.
bool is_root(MPI_Comm comm, int root, const char* function) {
  const MPI_ABI_Comm& c = communicator(comm, function);
  if (c.inter) return weft::mpi::intercomm_is_root(c, root);
  return weft::mpi::checked_root(c, root) == c.group.rank();
}

// A copy of the `n` values of an array this rank's call reads (`used`), or none.
std::vector<MPI_Count> saved(CountArray values, int n, bool used = true) {
  std::vector<MPI_Count> copy;
  if (!used || values.null()) return copy;
  copy.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) copy[static_cast<size_t>(i)] = values[i];
  return copy;
}

std::vector<MPI_Datatype> saved_types(const MPI_Datatype types[], int n, bool used = true) {
  if (!used || types == nullptr) return {};
  return std::vector<MPI_Datatype>(types, types + n);
}

// A saved array as the operations take it; null where none was saved.
CountArray view(const std::vector<MPI_Count>& values) {
  return values.empty() ? CountArray(static_cast<const MPI_Count*>(nullptr)) : values.data();
}

const MPI_Datatype* view(const std::vector<MPI_Datatype>& types) {
  return types.empty() ? nullptr : types.data();
}

// The operations, for both count types.

MPI_Request bcast_init(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                       MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  is_root(comm, root, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return weft::mpi::start_bcast(buffer, count, datatype, root, c, true);
  });
}

// Gather and scatter take the same arguments, and so do allgather and alltoall: each
// pair shares its init, which holds the types, checks the root or communicator and starts
// the operation it is given.
using RootedStart = Started (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count,
                                MPI_Datatype, int, const MPI_ABI_Comm&, bool);
using EveryoneStart = Started (*)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count,
                                  MPI_Datatype, const MPI_ABI_Comm&, bool);

MPI_Request rooted_init(RootedStart start, const void* sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  is_root(comm, root, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return start(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, true);
  });
}

MPI_Request everyone_init(EveryoneStart start, const void* sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  communicator(comm, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return start(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, true);
  });
}

MPI_Request gatherv_init(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, CountArray recvcounts, CountArray displs,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  bool root_here = is_root(comm, root, function);
  int n = peers_of(comm, function);
  return persistent_collective(comm, function,
                               [=, held = held, counts = saved(recvcounts, n, root_here),
                                offsets = saved(displs, n, root_here)](const MPI_ABI_Comm& c) {
                                 return weft::mpi::start_gatherv(
                                     sendbuf, sendcount, sendtype, recvbuf, view(counts),
                                     view(offsets), recvtype, root, c, true);
                               });
}

MPI_Request scatterv_init(const void* sendbuf, CountArray sendcounts, CountArray displs,
                          MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  bool root_here = is_root(comm, root, function);
  int n = peers_of(comm, function);
  return persistent_collective(comm, function,
                               [=, held = held, counts = saved(sendcounts, n, root_here),
                                offsets = saved(displs, n, root_here)](const MPI_ABI_Comm& c) {
                                 return weft::mpi::start_scatterv(
                                     sendbuf, view(counts), view(offsets), sendtype, recvbuf,
                                     recvcount, recvtype, root, c, true);
                               });
}

MPI_Request allgatherv_init(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void* recvbuf, CountArray recvcounts, CountArray displs,
                            MPI_Datatype recvtype, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  int n = peers_of(comm, function);
  return persistent_collective(comm, function,
                               [=, held = held, counts = saved(recvcounts, n),
                                offsets = saved(displs, n)](const MPI_ABI_Comm& c) {
                                 return weft::mpi::start_allgatherv(
                                     sendbuf, sendcount, sendtype, recvbuf, view(counts),
                                     view(offsets), recvtype, c, true);
                               });
}

MPI_Request alltoallv_init(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                           MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts,
                           CountArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                           const char* function) {
  auto held = std::make_shared<HeldTypes>();
  sendtype = held->hold(sendtype);
  recvtype = held->hold(recvtype);
  int n = peers_of(comm, function);
  bool sends = sendbuf != MPI_IN_PLACE;
  return persistent_collective(
      comm, function,
      [=, held = held, send_counts = saved(sendcounts, n, sends),
       send_offsets = saved(sdispls, n, sends), recv_counts = saved(recvcounts, n),
       recv_offsets = saved(rdispls, n)](const MPI_ABI_Comm& c) {
        return weft::mpi::start_alltoallv(sendbuf, view(send_counts), view(send_offsets), sendtype,
                                          recvbuf, view(recv_counts), view(recv_offsets), recvtype,
                                          c, true);
      });
}

MPI_Request alltoallw_init(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                           const MPI_Datatype sendtypes[], void* recvbuf, CountArray recvcounts,
                           CountArray rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm,
                           const char* function) {
  auto held = std::make_shared<HeldTypes>();
  int n = peers_of(comm, function);
  bool sends = sendbuf != MPI_IN_PLACE;
  return persistent_collective(
      comm, function,
      [=, held = held, send_counts = saved(sendcounts, n, sends),
       send_offsets = saved(sdispls, n, sends),
       send_types = held->hold(saved_types(sendtypes, n, sends)),
       recv_counts = saved(recvcounts, n), recv_offsets = saved(rdispls, n),
       recv_types = held->hold(saved_types(recvtypes, n))](const MPI_ABI_Comm& c) {
        return weft::mpi::start_alltoallw(sendbuf, view(send_counts), view(send_offsets),
                                          view(send_types), recvbuf, view(recv_counts),
                                          view(recv_offsets), view(recv_types), c, true);
      });
}

MPI_Request reduce_init(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  is_root(comm, root, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return weft::mpi::start_rooted_reduce(sendbuf, recvbuf, count, datatype, op, root, c, true);
  });
}

MPI_Request allreduce_init(const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  communicator(comm, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return weft::mpi::start_allreduce(sendbuf, recvbuf, count, datatype, op, c, true);
  });
}

MPI_Request reduce_scatter_init(const void* sendbuf, void* recvbuf, CountArray recvcounts,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  // One count per rank of the local group (of an intercommunicator too).
  int n = weft::mpi::local_size(communicator(comm, function));
  if (recvcounts.null()) throw weft::mpi::MpiError(MPI_ERR_ARG, "recvcounts is NULL");
  return persistent_collective(
      comm, function, [=, held = held, counts = saved(recvcounts, n)](const MPI_ABI_Comm& c) {
        return weft::mpi::start_reduce_scatter(sendbuf, recvbuf, view(counts), datatype, op, c,
                                               true);
      });
}

MPI_Request reduce_scatter_block_init(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  communicator(comm, function);
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return weft::mpi::start_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, c,
                                                 true);
  });
}

MPI_Request scan_init(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, bool inclusive, MPI_Comm comm, const char* function) {
  auto held = std::make_shared<HeldTypes>();
  datatype = held->hold(datatype);
  // Refused at init on an intercommunicator, so that no request is made for it.
  weft::mpi::require_intracommunicator(communicator(comm, function));
  return persistent_collective(comm, function, [=, held = held](const MPI_ABI_Comm& c) {
    return weft::mpi::start_scan(sendbuf, recvbuf, count, datatype, op, inclusive, c, true);
  });
}

}  // namespace

extern "C" {

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Barrier_init", comm, [&] {
    communicator(comm, "MPI_Barrier_init");
    *request = persistent_collective(comm, "MPI_Barrier_init", [](const MPI_ABI_Comm& c) {
      return weft::mpi::start_barrier(c, true);
    });
  });
}
WEFT_MPI_ALIAS(Barrier_init)

int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Bcast_init", comm, [&] {
    *request = bcast_init(buffer, count, datatype, root, comm, "MPI_Bcast_init");
  });
}
WEFT_MPI_ALIAS(Bcast_init)

int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Bcast_init_c", comm, [&] {
    *request = bcast_init(buffer, count, datatype, root, comm, "MPI_Bcast_init_c");
  });
}
WEFT_MPI_ALIAS(Bcast_init_c)

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                     MPI_Request* request) {
  return mpi_call("MPI_Gather_init", comm, [&] {
    *request = rooted_init(weft::mpi::start_gather, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root, comm, "MPI_Gather_init");
  });
}
WEFT_MPI_ALIAS(Gather_init)

int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Gather_init_c", comm, [&] {
    *request = rooted_init(weft::mpi::start_gather, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root, comm, "MPI_Gather_init_c");
  });
}
WEFT_MPI_ALIAS(Gather_init_c)

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Gatherv_init", comm, [&] {
    *request = gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm, "MPI_Gatherv_init");
  });
}
WEFT_MPI_ALIAS(Gatherv_init)

int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return mpi_call("MPI_Gatherv_init_c", comm, [&] {
    *request = gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm, "MPI_Gatherv_init_c");
  });
}
WEFT_MPI_ALIAS(Gatherv_init_c)

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                      MPI_Request* request) {
  return mpi_call("MPI_Scatter_init", comm, [&] {
    *request = rooted_init(weft::mpi::start_scatter, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root, comm, "MPI_Scatter_init");
  });
}
WEFT_MPI_ALIAS(Scatter_init)

int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Scatter_init_c", comm, [&] {
    *request = rooted_init(weft::mpi::start_scatter, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, root, comm, "MPI_Scatter_init_c");
  });
}
WEFT_MPI_ALIAS(Scatter_init_c)

int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Scatterv_init", comm, [&] {
    *request = scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm, "MPI_Scatterv_init");
  });
}
WEFT_MPI_ALIAS(Scatterv_init)

int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                         MPI_Request* request) {
  return mpi_call("MPI_Scatterv_init_c", comm, [&] {
    *request = scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm, "MPI_Scatterv_init_c");
  });
}
WEFT_MPI_ALIAS(Scatterv_init_c)

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return mpi_call("MPI_Allgather_init", comm, [&] {
    *request = everyone_init(weft::mpi::start_allgather, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, "MPI_Allgather_init");
  });
}
WEFT_MPI_ALIAS(Allgather_init)

int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Allgather_init_c", comm, [&] {
    *request = everyone_init(weft::mpi::start_allgather, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, "MPI_Allgather_init_c");
  });
}
WEFT_MPI_ALIAS(Allgather_init_c)

int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Allgatherv_init", comm, [&] {
    *request = allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm, "MPI_Allgatherv_init");
  });
}
WEFT_MPI_ALIAS(Allgatherv_init)

int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Allgatherv_init_c", comm, [&] {
    *request = allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm, "MPI_Allgatherv_init_c");
  });
}
WEFT_MPI_ALIAS(Allgatherv_init_c)

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return mpi_call("MPI_Alltoall_init", comm, [&] {
    *request = everyone_init(weft::mpi::start_alltoall, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, "MPI_Alltoall_init");
  });
}
WEFT_MPI_ALIAS(Alltoall_init)

int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Alltoall_init_c", comm, [&] {
    *request = everyone_init(weft::mpi::start_alltoall, sendbuf, sendcount, sendtype, recvbuf,
                             recvcount, recvtype, comm, "MPI_Alltoall_init_c");
  });
}
WEFT_MPI_ALIAS(Alltoall_init_c)

int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return mpi_call("MPI_Alltoallv_init", comm, [&] {
    *request = alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm, "MPI_Alltoallv_init");
  });
}
WEFT_MPI_ALIAS(Alltoallv_init)

int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Alltoallv_init_c", comm, [&] {
    *request = alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm, "MPI_Alltoallv_init_c");
  });
}
WEFT_MPI_ALIAS(Alltoallv_init_c)

int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Alltoallw_init", comm, [&] {
    *request = alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                              recvtypes, comm, "MPI_Alltoallw_init");
  });
}
WEFT_MPI_ALIAS(Alltoallw_init)

int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                          MPI_Request* request) {
  return mpi_call("MPI_Alltoallw_init_c", comm, [&] {
    *request = alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                              recvtypes, comm, "MPI_Alltoallw_init_c");
  });
}
WEFT_MPI_ALIAS(Alltoallw_init_c)

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Reduce_init", comm, [&] {
    *request = reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce_init");
  });
}
WEFT_MPI_ALIAS(Reduce_init)

int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Reduce_init_c", comm, [&] {
    *request = reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce_init_c");
  });
}
WEFT_MPI_ALIAS(Reduce_init_c)

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Allreduce_init", comm, [&] {
    *request = allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Allreduce_init");
  });
}
WEFT_MPI_ALIAS(Allreduce_init)

int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                          MPI_Request* request) {
  return mpi_call("MPI_Allreduce_init_c", comm, [&] {
    *request = allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Allreduce_init_c");
  });
}
WEFT_MPI_ALIAS(Allreduce_init_c)

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                             MPI_Request* request) {
  return mpi_call("MPI_Reduce_scatter_init", comm, [&] {
    *request = reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                   "MPI_Reduce_scatter_init");
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_init)

int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                               MPI_Request* request) {
  return mpi_call("MPI_Reduce_scatter_init_c", comm, [&] {
    *request = reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                   "MPI_Reduce_scatter_init_c");
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_init_c)

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                   MPI_Request* request) {
  return mpi_call("MPI_Reduce_scatter_block_init", comm, [&] {
    *request = reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                         "MPI_Reduce_scatter_block_init");
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_block_init)

int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                     MPI_Request* request) {
  return mpi_call("MPI_Reduce_scatter_block_init_c", comm, [&] {
    *request = reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                         "MPI_Reduce_scatter_block_init_c");
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_block_init_c)

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Scan_init", comm, [&] {
    *request = scan_init(sendbuf, recvbuf, count, datatype, op, true, comm, "MPI_Scan_init");
  });
}
WEFT_MPI_ALIAS(Scan_init)

int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Scan_init_c", comm, [&] {
    *request = scan_init(sendbuf, recvbuf, count, datatype, op, true, comm, "MPI_Scan_init_c");
  });
}
WEFT_MPI_ALIAS(Scan_init_c)

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Exscan_init", comm, [&] {
    *request = scan_init(sendbuf, recvbuf, count, datatype, op, false, comm, "MPI_Exscan_init");
  });
}
WEFT_MPI_ALIAS(Exscan_init)

int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Exscan_init_c", comm, [&] {
    *request = scan_init(sendbuf, recvbuf, count, datatype, op, false, comm, "MPI_Exscan_init_c");
  });
}
WEFT_MPI_ALIAS(Exscan_init_c)

}  // extern "C"

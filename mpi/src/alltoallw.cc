// MPI_Alltoallw and its non-blocking, large-count and persistent relatives: a block for
// each peer with its own count, datatype and displacement (in bytes, the datatypes
// differing). The blocks share no element size, so they travel packed: every send
// block is packed into one buffer, one after another, the core's all_to_allv moves the
// bytes, and each received block is unpacked into its place at the end. On an
// intercommunicator block r is remote rank r's: the exchange runs over both groups (the
// intercommunicator's collective context), nothing passing within a group.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi/src/collective_starts.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm_collectives.h"
#include "mpi/src/objects.h"
#include "mpi/src/started.h"

using weft::mpi::as_request;
using weft::mpi::communicator;
using weft::mpi::CountArray;
using weft::mpi::mpi_call;
using weft::mpi::start_alltoallw;
using weft::mpi::wait_for;

namespace weft::mpi {
namespace {

// One side's blocks (the send or the receive buffer), one per peer, and their packed
// bytes.
struct PackedBlocks {
  std::vector<BufferLayout> layouts;
  std::vector<uint64_t> counts, offsets;  // each block's packed bytes, and where it starts
  std::vector<std::byte> bytes;

  weft::Tensor tensor() { return weft::Tensor(bytes.data(), bytes.size(), weft::DType::kUInt8); }
};

// Checks and lays out block r = counts[r] elements of types[r] at buf + displs[r] bytes.
// `side` is "send" or "recv", as the arguments are named.
std::shared_ptr<PackedBlocks> lay_out(const void* buf, CountArray counts, CountArray displs,
                                      const MPI_Datatype types[], int n, const std::string& side) {
  if (n > 0 && (counts.null() || displs.null() || types == nullptr)) {
    throw MpiError(MPI_ERR_ARG,
                   "the " + side + "counts, " + side + "displs or " + side + "types array is NULL");
  }
  auto blocks = std::make_shared<PackedBlocks>();
  blocks->layouts.resize(static_cast<size_t>(n));
  blocks->counts.resize(static_cast<size_t>(n));
  blocks->offsets.resize(static_cast<size_t>(n));
  uint64_t total = 0;
  for (int r = 0; r < n; ++r) {
    std::string index = "[" + std::to_string(r) + "]";
    if (counts[r] < 0) {
      throw MpiError(MPI_ERR_COUNT,
                     side + "counts" + index + " = " + std::to_string(counts[r]) + " is negative");
    }
    // Computed as an integer: the displacement may be relative to MPI_BOTTOM.
    const void* start = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(buf) +
                                                      static_cast<uintptr_t>(displs[r]));
    std::string what = side + "types" + index;
    size_t i = static_cast<size_t>(r);
    blocks->layouts[i] = layout_of(start, counts[r], types[r], what.c_str());
    blocks->counts[i] = blocks->layouts[i].bytes;
    blocks->offsets[i] = total;
    total += blocks->layouts[i].bytes;
  }
  blocks->bytes.resize(total);
  return blocks;
}

// The core's per-rank byte counts and offsets for one side's blocks, over a group of
// `size` ranks in which peer r is rank `first` + r; the other ranks get nothing.
struct CoreSide {
  std::vector<uint64_t> counts, offsets;
};

std::shared_ptr<CoreSide> core_side(const PackedBlocks& blocks, int size, int first) {
  auto side = std::make_shared<CoreSide>();
  side->counts.assign(static_cast<size_t>(size), 0);
  side->offsets.assign(static_cast<size_t>(size), 0);
  for (size_t r = 0; r < blocks.counts.size(); ++r) {
    side->counts[static_cast<size_t>(first) + r] = blocks.counts[r];
    side->offsets[static_cast<size_t>(first) + r] = blocks.offsets[r];
  }
  return side;
}

}  // namespace

Started start_alltoallw(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                        const MPI_Datatype sendtypes[], void* recvbuf, CountArray recvcounts,
                        CountArray rdispls, const MPI_Datatype recvtypes[], const MPI_ABI_Comm& c,
                        bool async) {
  if (c.inter && sendbuf == MPI_IN_PLACE) {
    throw MpiError(MPI_ERR_BUFFER, "sendbuf is MPI_IN_PLACE, which intercommunicators do not take");
  }
  int n = peer_count(c);
  std::shared_ptr<PackedBlocks> received =
      lay_out(recvbuf, recvcounts, rdispls, recvtypes, n, "recv");
  // In place, each block goes out from where its answer lands: packed before anything
  // arrives, so no copy of the program's data is needed beyond the packing.
  std::shared_ptr<PackedBlocks> sent =
      sendbuf == MPI_IN_PLACE ? lay_out(recvbuf, recvcounts, rdispls, recvtypes, n, "recv")
                              : lay_out(sendbuf, sendcounts, sdispls, sendtypes, n, "send");
  for (size_t r = 0; r < sent->layouts.size(); ++r) {
    pack(sent->layouts[r], sent->bytes.data() + sent->offsets[r]);
  }
  const weft::Group& group = c.inter ? c.collective_group : c.group;
  std::shared_ptr<CoreSide> to = core_side(*sent, group.size(), c.remote_offset);
  std::shared_ptr<CoreSide> from = core_side(*received, group.size(), c.remote_offset);
  Started started;
  started.keep(sent);
  started.keep(received);
  started.keep(to);
  started.keep(from);
  weft::Tensor in = sent->tensor(), out = received->tensor();
  started.request = run_collective(
      async,
      [&] {
        weft::all_to_allv(in, to->counts, to->offsets, out, from->counts, from->offsets, group);
      },
      [&] {
        return weft::iall_to_allv(in, to->counts, to->offsets, out, from->counts, from->offsets,
                                  group);
      });
  started.then([received] {
    for (size_t r = 0; r < received->layouts.size(); ++r) {
      unpack(received->bytes.data() + received->offsets[r], received->counts[r],
             received->layouts[r]);
    }
  });
  return started;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return mpi_call("MPI_Alltoallw", comm, [&] {
    wait_for(start_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                             recvtypes, communicator(comm, "MPI_Alltoallw"), false));
  });
}
WEFT_MPI_ALIAS(Alltoallw)

int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request* request) {
  return mpi_call("MPI_Ialltoallw", comm, [&] {
    *request =
        as_request(start_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, communicator(comm, "MPI_Ialltoallw"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Ialltoallw)

int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return mpi_call("MPI_Alltoallw_c", comm, [&] {
    wait_for(start_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                             recvtypes, communicator(comm, "MPI_Alltoallw_c"), false));
  });
}
WEFT_MPI_ALIAS(Alltoallw_c)

int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request* request) {
  return mpi_call("MPI_Ialltoallw_c", comm, [&] {
    *request = as_request(
        start_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, communicator(comm, "MPI_Ialltoallw_c"), true),
        comm);
  });
}
WEFT_MPI_ALIAS(Ialltoallw_c)

}  // extern "C"

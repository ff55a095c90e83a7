// The collectives with a count per rank (Gatherv, Scatterv, Allgatherv, Alltoallv), the
// reduce-scatters and the prefix reductions (Scan, Exscan), blocking and non-blocking.
// Counts and displacements are in elements of the datatype; the core takes bytes.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/block_buffer.h"
#include "mpi/src/collective_helpers.h"
#include "mpi/src/collective_starts.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/intercomm_collectives.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduction.h"
#include "mpi/src/started.h"

using weft::Counts;
using weft::mpi::as_request;
using weft::mpi::BlockBuffer;
using weft::mpi::communicator;
using weft::mpi::contribution;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::receive_into;
using weft::mpi::Reduction;
using weft::mpi::run_collective;
using weft::mpi::send_from;
using weft::mpi::start_allgatherv;
using weft::mpi::start_alltoallv;
using weft::mpi::start_gatherv;
using weft::mpi::start_reduce_scatter;
using weft::mpi::start_reduce_scatter_block;
using weft::mpi::start_scan;
using weft::mpi::start_scatterv;
using weft::mpi::Started;
using weft::mpi::wait_for;

namespace weft::mpi {

using Bytes = std::vector<std::byte>;

Started start_gatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, CountArray recvcounts, CountArray displs,
                      MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             root, c, async);
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  Started started;
  weft::Tensor in, all;
  Counts counts, offsets;
  if (me != root) {
    in = send_from(started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
  } else {
    BlockBuffer blocks =
        BlockBuffer::varying(recvbuf, recvcounts, displs, n, recvtype, "recvcounts", "displs");
    all = blocks.tensor();
    counts = blocks.counts();
    offsets = blocks.offsets();
    in = contribution(started, sendbuf, sendcount, sendtype, blocks, me);
    receive_into(started, blocks);
  }
  started.request = run_collective(
      async, [&] { weft::gatherv(in, all, counts, weft::GroupRank{root}, offsets, c.group); },
      [&] { return weft::igatherv(in, all, counts, weft::GroupRank{root}, offsets, c.group); });
  return started;
}

Started start_scatterv(const void* sendbuf, CountArray sendcounts, CountArray displs,
                       MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                              root, c, async);
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  Started started;
  weft::Tensor all, out;
  Counts counts, offsets;
  if (me == root) {
    BlockBuffer blocks =
        BlockBuffer::varying(sendbuf, sendcounts, displs, n, sendtype, "sendcounts", "displs");
    all = send_from(started, blocks);
    counts = blocks.counts();
    offsets = blocks.offsets();
    out = blocks.block(me);  // in place: the root's block stays where it is
  }
  if (me != root || recvbuf != MPI_IN_PLACE) {
    BlockBuffer received = BlockBuffer::single(recvbuf, recvcount, recvtype, "receive");
    out = received.tensor();
    receive_into(started, received);
  }
  started.request = run_collective(
      async, [&] { weft::scatterv(all, out, counts, weft::GroupRank{root}, offsets, c.group); },
      [&] { return weft::iscatterv(all, out, counts, weft::GroupRank{root}, offsets, c.group); });
  return started;
}

Started start_allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, CountArray recvcounts, CountArray displs,
                         MPI_Datatype recvtype, const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                c, async);
  int me = c.group.rank();
  Started started;
  BlockBuffer blocks = BlockBuffer::varying(recvbuf, recvcounts, displs, c.group.size(), recvtype,
                                            "recvcounts", "displs");
  weft::Tensor in = contribution(started, sendbuf, sendcount, sendtype, blocks, me);
  receive_into(started, blocks);
  weft::Tensor all = blocks.tensor();
  Counts counts = blocks.counts(), offsets = blocks.offsets();
  started.request = run_collective(
      async, [&] { weft::all_gatherv(in, all, counts, offsets, c.group); },
      [&] { return weft::iall_gatherv(in, all, counts, offsets, c.group); });
  return started;
}

Started start_alltoallv(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                        MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts,
                        CountArray rdispls, MPI_Datatype recvtype, const MPI_ABI_Comm& c,
                        bool async) {
  if (c.inter)
    return intercomm_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, c, async);
  int n = c.group.size();
  Started started;
  BlockBuffer received =
      BlockBuffer::varying(recvbuf, recvcounts, rdispls, n, recvtype, "recvcounts", "rdispls");
  weft::Tensor in;
  Counts in_counts, in_offsets;
  if (sendbuf == MPI_IN_PLACE) {
    // Each block goes out from where its answer will land: send from a copy.
    weft::Tensor landing = send_from(started, received);
    auto copy = std::make_shared<Bytes>(static_cast<std::byte*>(landing.data()),
                                        static_cast<std::byte*>(landing.data()) + landing.bytes());
    started.keep(copy);
    in = weft::Tensor(copy->data(), copy->size(), weft::DType::kUInt8);
    in_counts = received.counts();
    in_offsets = received.offsets();
  } else {
    BlockBuffer sent =
        BlockBuffer::varying(sendbuf, sendcounts, sdispls, n, sendtype, "sendcounts", "sdispls");
    in = send_from(started, sent);
    in_counts = sent.counts();
    in_offsets = sent.offsets();
  }
  receive_into(started, received);
  weft::Tensor out = received.tensor();
  Counts out_counts = received.counts(), out_offsets = received.offsets();
  started.request = run_collective(
      async,
      [&] { weft::all_to_allv(in, in_counts, in_offsets, out, out_counts, out_offsets, c.group); },
      [&] {
        return weft::iall_to_allv(in, in_counts, in_offsets, out, out_counts, out_offsets, c.group);
      });
  return started;
}

// Every rank's packed contribution gathered in rank order, then `combine` run on them
// once they are there, writing into `result`, which is then unpacked.
Started gather_then(const void* input, MPI_Count count, MPI_Datatype datatype,
                    const BlockBuffer& result, const MPI_ABI_Comm& c, bool async,
                    std::function<void(const Bytes&, std::byte* result)> combine) {
  Started started;
  weft::Tensor in = send_from(started, BlockBuffer::single(input, count, datatype, "send"));
  auto all = std::make_shared<Bytes>(in.bytes() * static_cast<size_t>(c.group.size()));
  weft::Tensor gathered(all->data(), all->size(), weft::DType::kUInt8);
  started.keep(all);
  started.request = run_collective(
      async, [&] { weft::all_gather(in, gathered, c.group); },
      [&] { return weft::iall_gather(in, gathered, c.group); });
  started.then([all, combine = std::move(combine), out = result.tensor()] {
    combine(*all, static_cast<std::byte*>(out.data()));
  });
  receive_into(started, result);
  return started;
}

Started start_reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts,
                             MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, c, async);
  int n = c.group.size(), me = c.group.rank();
  int64_t total = 0, before = 0;
  for (int r = 0; r < n; ++r) {
    if (recvcounts[r] < 0) {
      throw MpiError(MPI_ERR_COUNT, "recvcounts[" + std::to_string(r) +
                                        "] = " + std::to_string(recvcounts[r]) + " is negative");
    }
    if (r == me) before = total;
    if (__builtin_add_overflow(total, recvcounts[r], &total)) {
      throw MpiError(MPI_ERR_COUNT, "the recvcounts add up to more than an MPI_Count holds");
    }
  }
  Reduction reduction(op, datatype, total);
  bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;
  BlockBuffer mine = BlockBuffer::single(recvbuf, recvcounts[me], datatype, "receive");
  uint64_t offset = reduction.element_bytes() * static_cast<uint64_t>(before);
  if (auto core_op = reduction.core_op()) {
    Started started;
    BlockBuffer input_blocks = BlockBuffer::single(input, total, datatype, "send");
    weft::Tensor in = send_from(started, input_blocks);
    if (in_place && !input_blocks.staged()) {
      // The core reduces in its input; in place, that is the program's buffer, whose
      // part past this rank's result must come out unchanged. Reduce a copy instead.
      auto copy = std::make_shared<std::vector<std::byte>>(
          static_cast<const std::byte*>(in.data()),
          static_cast<const std::byte*>(in.data()) + in.bytes());
      started.keep(copy);
      in = weft::Tensor(copy->data(), copy->size(), weft::DType::kUInt8);
    }
    auto elements = std::make_shared<std::vector<uint64_t>>(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      (*elements)[static_cast<size_t>(r)] =
          static_cast<uint64_t>(recvcounts[r]) * reduction.values_per_element();
    }
    started.keep(elements);
    weft::Tensor typed_in = reduction.typed(in.data(), static_cast<uint64_t>(total));
    weft::Tensor typed_out =
        reduction.typed(mine.tensor().data(), static_cast<uint64_t>(recvcounts[me]));
    started.request = run_collective(
        async, [&] { weft::reduce_scatterv(typed_in, typed_out, *elements, *core_op, c.group); },
        [&] { return weft::ireduce_scatterv(typed_in, typed_out, *elements, *core_op, c.group); });
    receive_into(started, mine);
    return started;
  }
  return gather_then(
      input, total, datatype, mine, c, async,
      [reduction, n, offset, bytes = mine.block_bytes(0)](const Bytes& all, std::byte* result) {
        Bytes reduced(reduction.bytes());
        reduction.combine(0, n - 1, all.data(), reduced.data());
        if (bytes > 0) std::memcpy(result, reduced.data() + offset, bytes);
      });
}

// Scan (inclusive: ranks 0..me) and Exscan (exclusive: 0..me-1; rank 0's buffer is left
// as it was, its result being undefined).
Started start_scan(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, bool inclusive, const MPI_ABI_Comm& c, bool async) {
  require_intracommunicator(c);
  Reduction reduction(op, datatype, count);
  BlockBuffer result = BlockBuffer::single(recvbuf, count, datatype, "receive");
  int last = inclusive ? c.group.rank() : c.group.rank() - 1;
  // Rank 0's exclusive scan writes nothing: its staged buffer starts as the program's.
  if (last < 0) result.pack();
  return gather_then(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype, result, c, async,
                     [reduction, last](const Bytes& all, std::byte* out) {
                       if (last >= 0) reduction.combine(0, last, all.data(), out);
                     });
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return mpi_call("MPI_Gatherv", comm, [&] {
    wait_for(start_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, communicator(comm, "MPI_Gatherv"), false));
  });
}
WEFT_MPI_ALIAS(Gatherv)

int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Igatherv", comm, [&] {
    *request = as_request(start_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, root, communicator(comm, "MPI_Igatherv"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Igatherv)

int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  return mpi_call("MPI_Scatterv", comm, [&] {
    wait_for(start_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, communicator(comm, "MPI_Scatterv"), false));
  });
}
WEFT_MPI_ALIAS(Scatterv)

int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iscatterv", comm, [&] {
    *request = as_request(start_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                         recvtype, root, communicator(comm, "MPI_Iscatterv"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iscatterv)

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
  return mpi_call("MPI_Allgatherv", comm, [&] {
    wait_for(start_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              communicator(comm, "MPI_Allgatherv"), false));
  });
}
WEFT_MPI_ALIAS(Allgatherv)

int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iallgatherv", comm, [&] {
    *request =
        as_request(start_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, communicator(comm, "MPI_Iallgatherv"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Iallgatherv)

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Alltoallv", comm, [&] {
    wait_for(start_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, communicator(comm, "MPI_Alltoallv"), false));
  });
}
WEFT_MPI_ALIAS(Alltoallv)

int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  return mpi_call("MPI_Ialltoallv", comm, [&] {
    *request =
        as_request(start_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, communicator(comm, "MPI_Ialltoallv"), true),
                   comm);
  });
}
WEFT_MPI_ALIAS(Ialltoallv)

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Reduce_scatter", comm, [&] {
    wait_for(start_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                  communicator(comm, "MPI_Reduce_scatter"), false));
  });
}
WEFT_MPI_ALIAS(Reduce_scatter)

int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ireduce_scatter", comm, [&] {
    *request = as_request(start_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                               communicator(comm, "MPI_Ireduce_scatter"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ireduce_scatter)

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call("MPI_Reduce_scatter_block", comm, [&] {
    wait_for(start_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                        communicator(comm, "MPI_Reduce_scatter_block"), false));
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request) {
  return mpi_call("MPI_Ireduce_scatter_block", comm, [&] {
    *request = as_request(
        start_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                   communicator(comm, "MPI_Ireduce_scatter_block"), true),
        comm);
  });
}
WEFT_MPI_ALIAS(Ireduce_scatter_block)

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
  return mpi_call("MPI_Scan", comm, [&] {
    wait_for(start_scan(sendbuf, recvbuf, count, datatype, op, true, communicator(comm, "MPI_Scan"),
                        false));
  });
}
WEFT_MPI_ALIAS(Scan)

int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iscan", comm, [&] {
    *request = as_request(start_scan(sendbuf, recvbuf, count, datatype, op, true,
                                     communicator(comm, "MPI_Iscan"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iscan)

int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  return mpi_call("MPI_Exscan", comm, [&] {
    wait_for(start_scan(sendbuf, recvbuf, count, datatype, op, false,
                        communicator(comm, "MPI_Exscan"), false));
  });
}
WEFT_MPI_ALIAS(Exscan)

int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iexscan", comm, [&] {
    *request = as_request(start_scan(sendbuf, recvbuf, count, datatype, op, false,
                                     communicator(comm, "MPI_Iexscan"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iexscan)

}  // extern "C"

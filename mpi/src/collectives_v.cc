// The collectives with a count per rank (Gatherv, Scatterv, Allgatherv, Alltoallv), the
// reduce-scatters and the prefix reductions (Scan, Exscan), blocking and non-blocking.
// Counts and displacements are in elements of the datatype; the core takes bytes.
#include <cstring>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/collective_helpers.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduce_ops.h"
#include "mpi/src/started.h"

using weft::mpi::as_request;
using weft::mpi::byte_counts;
using weft::mpi::bytes_at;
using weft::mpi::communicator;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::run_collective;
using weft::mpi::Started;
using weft::mpi::wait_for;

namespace {

using Bytes = std::vector<std::byte>;

// The per-rank blocks of a v-form, in bytes; they must outlive a non-blocking call, as
// the core reads them while it runs.
struct Blocks {
  std::vector<uint64_t> counts, offsets;
};

Started start_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      const MPI_ABI_Comm& c, bool async) {
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  auto blocks = std::make_shared<Blocks>();
  std::vector<uint64_t>& counts = blocks->counts;
  std::vector<uint64_t>& offsets = blocks->offsets;
  weft::Tensor in, all;
  if (me != root) {
    in = weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
  } else {
    counts = byte_counts(recvcounts, n, recvtype, "recvcounts");
    offsets = byte_counts(displs, n, recvtype, "displs");
    all = bytes_at(recvbuf, 0, weft::mpi::span_of(counts, offsets));
    in = sendbuf == MPI_IN_PLACE
             ? bytes_at(recvbuf, offsets[static_cast<size_t>(me)], counts[static_cast<size_t>(me)])
             : weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
  }
  Started started;
  started.request = run_collective(
      async, [&] { weft::gatherv(in, all, counts, root, offsets, c.group); },
      [&] { return weft::igatherv(in, all, counts, root, offsets, c.group); });
  started.keep_alive = blocks;
  return started;
}

Started start_scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, const MPI_ABI_Comm& c, bool async) {
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  auto blocks = std::make_shared<Blocks>();
  std::vector<uint64_t>& counts = blocks->counts;
  std::vector<uint64_t>& offsets = blocks->offsets;
  weft::Tensor all, out;
  if (me != root) {
    out = weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
  } else {
    counts = byte_counts(sendcounts, n, sendtype, "sendcounts");
    offsets = byte_counts(displs, n, sendtype, "displs");
    all = bytes_at(sendbuf, 0, weft::mpi::span_of(counts, offsets));
    out = recvbuf == MPI_IN_PLACE
              ? bytes_at(sendbuf, offsets[static_cast<size_t>(me)], counts[static_cast<size_t>(me)])
              : weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
  }
  Started started;
  started.request = run_collective(
      async, [&] { weft::scatterv(all, out, counts, root, offsets, c.group); },
      [&] { return weft::iscatterv(all, out, counts, root, offsets, c.group); });
  started.keep_alive = blocks;
  return started;
}

Started start_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         const MPI_ABI_Comm& c, bool async) {
  int n = c.group.size(), me = c.group.rank();
  auto blocks = std::make_shared<Blocks>();
  std::vector<uint64_t>& counts = blocks->counts;
  std::vector<uint64_t>& offsets = blocks->offsets;
  counts = byte_counts(recvcounts, n, recvtype, "recvcounts");
  offsets = byte_counts(displs, n, recvtype, "displs");
  weft::Tensor all = bytes_at(recvbuf, 0, weft::mpi::span_of(counts, offsets));
  weft::Tensor in =
      sendbuf == MPI_IN_PLACE
          ? bytes_at(recvbuf, offsets[static_cast<size_t>(me)], counts[static_cast<size_t>(me)])
          : weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
  Started started;
  started.request = run_collective(
      async, [&] { weft::all_gatherv(in, all, counts, offsets, c.group); },
      [&] { return weft::iall_gatherv(in, all, counts, offsets, c.group); });
  started.keep_alive = blocks;
  return started;
}

Started start_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, const MPI_ABI_Comm& c,
                        bool async) {
  int n = c.group.size();
  struct Plan {
    std::vector<uint64_t> in_counts, in_offsets, out_counts, out_offsets;
    Bytes copy;
  };
  auto plan = std::make_shared<Plan>();
  plan->in_counts = byte_counts(recvcounts, n, recvtype, "recvcounts");
  plan->in_offsets = byte_counts(rdispls, n, recvtype, "rdispls");
  weft::Tensor out = bytes_at(recvbuf, 0, weft::mpi::span_of(plan->in_counts, plan->in_offsets));
  weft::Tensor in;
  if (sendbuf == MPI_IN_PLACE) {
    // Each block goes out from where its answer will land: send from a copy.
    plan->out_counts = plan->in_counts;
    plan->out_offsets = plan->in_offsets;
    plan->copy.assign(static_cast<std::byte*>(recvbuf),
                      static_cast<std::byte*>(recvbuf) + out.bytes());
    in = weft::Tensor(plan->copy.data(), plan->copy.size(), weft::DType::kUInt8);
  } else {
    plan->out_counts = byte_counts(sendcounts, n, sendtype, "sendcounts");
    plan->out_offsets = byte_counts(sdispls, n, sendtype, "sdispls");
    in = bytes_at(sendbuf, 0, weft::mpi::span_of(plan->out_counts, plan->out_offsets));
  }
  Started started;
  started.request = run_collective(
      async,
      [&] {
        weft::all_to_allv(in, plan->out_counts, plan->out_offsets, out, plan->in_counts,
                          plan->in_offsets, c.group);
      },
      [&] {
        return weft::iall_to_allv(in, plan->out_counts, plan->out_offsets, out, plan->in_counts,
                                  plan->in_offsets, c.group);
      });
  started.keep_alive = plan;
  return started;
}

// Every rank's `count` elements gathered in rank order into `all`, then `combine` run on
// them once they are there.
Started gather_then(const void* input, int count, MPI_Datatype datatype, const MPI_ABI_Comm& c,
                    bool async, std::function<void(const Bytes&)> combine) {
  weft::Tensor in = weft::mpi::bytes_of(input, count, datatype, "send");
  auto all = std::make_shared<Bytes>(in.bytes() * static_cast<size_t>(c.group.size()));
  weft::Tensor gathered(all->data(), all->size(), weft::DType::kUInt8);
  Started started;
  started.keep_alive = all;
  started.request = run_collective(
      async, [&] { weft::all_gather(in, gathered, c.group); },
      [&] { return weft::iall_gather(in, gathered, c.group); });
  started.finish = [all, combine = std::move(combine)] { combine(*all); };
  return started;
}

Started start_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c, bool async) {
  const weft::mpi::TypeInfo& type = weft::mpi::type_info(datatype);
  weft::mpi::check_op(op, type);
  int n = c.group.size(), me = c.group.rank();
  byte_counts(recvcounts, n, datatype, "recvcounts");  // refuses negative counts
  int64_t total = 0, before = 0;
  for (int r = 0; r < n; ++r) {
    if (r == me) before = total;
    total += recvcounts[r];
  }
  if (total > INT32_MAX) throw MpiError(MPI_ERR_COUNT, "the counts add up to more than INT_MAX");
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  size_t mine = static_cast<size_t>(recvcounts[me]) * type.extent;
  size_t offset = static_cast<size_t>(before) * type.extent;
  if (auto core_op = weft::mpi::core_op(op, type)) {
    weft::DType dtype = *weft::mpi::core_dtype(type.element);
    auto elements = std::make_shared<std::vector<uint64_t>>(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r)
      (*elements)[static_cast<size_t>(r)] = static_cast<uint64_t>(recvcounts[r]);
    weft::Tensor in(const_cast<void*>(input), static_cast<uint64_t>(total), dtype);
    // In place, the core writes this rank's result over its part of the input; MPI wants
    // it at the start of the buffer.
    bool in_place = sendbuf == MPI_IN_PLACE;
    void* out_at = in_place ? static_cast<std::byte*>(recvbuf) + offset : recvbuf;
    weft::Tensor out(out_at, static_cast<uint64_t>(recvcounts[me]), dtype);
    Started started;
    started.request = run_collective(
        async, [&] { weft::reduce_scatterv(in, out, *elements, *core_op, c.group); },
        [&] { return weft::ireduce_scatterv(in, out, *elements, *core_op, c.group); });
    started.keep_alive = elements;
    started.finish = [in_place, recvbuf, out_at, mine] {
      if (in_place && out_at != recvbuf && mine > 0) std::memmove(recvbuf, out_at, mine);
    };
    return started;
  }
  return gather_then(input, static_cast<int>(total), datatype, c, async,
                     [op, &type, total, n, recvbuf, offset, mine](const Bytes& all) {
                       Bytes reduced(static_cast<size_t>(total) * type.extent);
                       weft::mpi::combine_in_rank_order(op, type, static_cast<size_t>(total), 0,
                                                        n - 1, all.data(), reduced.data());
                       if (mine > 0) std::memcpy(recvbuf, reduced.data() + offset, mine);
                     });
}

// Scan (inclusive: ranks 0..me) and Exscan (exclusive: 0..me-1; rank 0's buffer is left
// as it was, its result being undefined).
Started start_scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   bool inclusive, const MPI_ABI_Comm& c, bool async) {
  const weft::mpi::TypeInfo& type = weft::mpi::type_info(datatype);
  weft::mpi::check_op(op, type);
  weft::mpi::bytes_of(recvbuf, count, datatype, "receive");
  int last = inclusive ? c.group.rank() : c.group.rank() - 1;
  return gather_then(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype, c, async,
                     [op, &type, count, last, recvbuf](const Bytes& all) {
                       if (last < 0) return;
                       weft::mpi::combine_in_rank_order(op, type, static_cast<size_t>(count), 0,
                                                        last, all.data(), recvbuf);
                     });
}

}  // namespace

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
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Reduce_scatter_block");
    std::vector<int> counts(static_cast<size_t>(c.group.size()), recvcount);
    wait_for(start_reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, c, false));
  });
}
WEFT_MPI_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request) {
  return mpi_call("MPI_Ireduce_scatter_block", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Ireduce_scatter_block");
    std::vector<int> counts(static_cast<size_t>(c.group.size()), recvcount);
    *request = as_request(
        start_reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, c, true), comm);
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

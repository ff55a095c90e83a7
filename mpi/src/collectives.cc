// Collectives, blocking and non-blocking (each start_* serves both forms). Data moves
// as bytes through the core's collectives. Reductions the core has (sum, prod, min, max
// and the bitwise ops on its integer and float types) run in the core; every other
// reduction is computed here: each rank's contribution is gathered and combined in
// rank order, x0 op (x1 op (... op x(n-1))), so every rank gets the same bits and a
// non-commutative operation keeps its order.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/block_buffer.h"
#include "mpi/src/collective_helpers.h"
#include "mpi/src/collective_starts.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/intercomm_collectives.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduction.h"
#include "mpi/src/started.h"

using weft::mpi::as_request;
using weft::mpi::BlockBuffer;
using weft::mpi::check_same_bytes;
using weft::mpi::communicator;
using weft::mpi::contribution;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::receive_into;
using weft::mpi::Reduction;
using weft::mpi::run_collective;
using weft::mpi::send_from;
using weft::mpi::start_allgather;
using weft::mpi::start_allreduce;
using weft::mpi::start_alltoall;
using weft::mpi::start_barrier;
using weft::mpi::start_bcast;
using weft::mpi::start_gather;
using weft::mpi::start_rooted_reduce;
using weft::mpi::start_scatter;
using weft::mpi::Started;
using weft::mpi::wait_for;

namespace weft::mpi {

Started start_barrier(const MPI_ABI_Comm& c, bool async) {
  if (c.inter) return intercomm_barrier(c, async);
  return Started::of(run_collective(
      async, [&] { weft::barrier(c.group); }, [&] { return weft::ibarrier(c.group); }));
}

Started start_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                    const MPI_ABI_Comm& c, bool async) {
  if (c.inter) return intercomm_bcast(buffer, count, datatype, root, c, async);
  BlockBuffer data = BlockBuffer::single(buffer, count, datatype, "broadcast");
  int r = weft::mpi::checked_root(c, root);
  Started started;
  if (c.group.rank() == r) {
    send_from(started, data);
  } else {
    receive_into(started, data);
  }
  started.request = run_collective(
      async, [&] { weft::broadcast(data.tensor(), weft::GroupRank{r}, c.group); },
      [&] { return weft::ibroadcast(data.tensor(), weft::GroupRank{r}, c.group); });
  return started;
}

// The reduction of every rank's `input` (count elements), into `output` on every rank
// (root < 0) or on `root` only. Intracommunicators only: start_allreduce and
// start_rooted_reduce hand an intercommunicator's reductions to intercomm_collectives.cc.
Started start_reduce(const void* input, void* output, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, const MPI_ABI_Comm& c, bool async) {
  Reduction reduction(op, datatype, count);
  bool everyone = root < 0;
  bool receives = everyone || c.group.rank() == root;
  Started started;
  weft::Tensor in = send_from(started, BlockBuffer::single(input, count, datatype, "send"));
  std::optional<BlockBuffer> out;
  if (receives) out = BlockBuffer::single(output, count, datatype, "receive");
  if (auto core_op = reduction.core_op()) {
    weft::Tensor typed_in = reduction.typed(in.data());
    weft::Tensor typed_out = receives ? reduction.typed(out->tensor().data()) : typed_in;
    started.request = run_collective(
        async,
        [&] {
          if (everyone) {
            weft::all_reduce(typed_in, typed_out, *core_op, c.group);
          } else {
            weft::reduce(typed_in, typed_out, weft::GroupRank{root}, *core_op, c.group);
          }
        },
        [&] {
          return everyone
                     ? weft::iall_reduce(typed_in, typed_out, *core_op, c.group)
                     : weft::ireduce(typed_in, typed_out, weft::GroupRank{root}, *core_op, c.group);
        });
  } else {
    int n = c.group.size();
    auto all = std::make_shared<std::vector<std::byte>>(in.bytes() * static_cast<size_t>(n));
    weft::Tensor gathered(all->data(), all->size(), weft::DType::kUInt8);
    started.keep(all);
    started.request = run_collective(
        async,
        [&] {
          if (everyone) {
            weft::all_gather(in, gathered, c.group);
          } else {
            weft::gather(in, gathered, weft::GroupRank{root}, c.group);
          }
        },
        [&] {
          return everyone ? weft::iall_gather(in, gathered, c.group)
                          : weft::igather(in, gathered, weft::GroupRank{root}, c.group);
        });
    if (receives) {
      started.then([reduction, n, all, result = out->tensor()] {
        reduction.combine(0, n - 1, all->data(), static_cast<std::byte*>(result.data()));
      });
    }
  }
  if (receives) receive_into(started, *out);
  return started;
}

Started start_rooted_reduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, int root, const MPI_ABI_Comm& c,
                            bool async) {
  if (c.inter) return intercomm_reduce(sendbuf, recvbuf, count, datatype, op, root, c, async);
  weft::mpi::checked_root(c, root);
  if (sendbuf == MPI_IN_PLACE && c.group.rank() != root) {
    throw MpiError(MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's alone");
  }
  return start_reduce(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op,
                      root, c, async);
}

Started start_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, const MPI_ABI_Comm& c, bool async) {
  if (c.inter) return intercomm_allreduce(sendbuf, recvbuf, count, datatype, op, c, async);
  return start_reduce(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op, -1,
                      c, async);
}

Started start_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c,
                     bool async) {
  if (c.inter)
    return intercomm_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c,
                            async);
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  Started started;
  weft::Tensor in, all;
  if (me != root) {
    in = send_from(started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
  } else {
    BlockBuffer blocks = BlockBuffer::uniform(recvbuf, recvcount, n, recvtype, "receive");
    all = blocks.tensor();
    // In place, this rank's block is already where it belongs.
    in = contribution(started, sendbuf, sendcount, sendtype, blocks, me);
    check_same_bytes(in, blocks.block(me));
    receive_into(started, blocks);
  }
  started.request = run_collective(
      async, [&] { weft::gather(in, all, weft::GroupRank{root}, c.group); },
      [&] { return weft::igather(in, all, weft::GroupRank{root}, c.group); });
  return started;
}

Started start_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c,
                             async);
  weft::mpi::checked_root(c, root);
  int n = c.group.size(), me = c.group.rank();
  Started started;
  weft::Tensor all, out;
  if (me == root) {
    BlockBuffer blocks = BlockBuffer::uniform(sendbuf, sendcount, n, sendtype, "send");
    all = send_from(started, blocks);
    out = blocks.block(me);  // in place: the root's block stays where it is
  }
  if (me != root || recvbuf != MPI_IN_PLACE) {
    BlockBuffer received = BlockBuffer::single(recvbuf, recvcount, recvtype, "receive");
    if (me == root) check_same_bytes(out, received.tensor());
    out = received.tensor();
    receive_into(started, received);
  }
  started.request = run_collective(
      async, [&] { weft::scatter(all, out, weft::GroupRank{root}, c.group); },
      [&] { return weft::iscatter(all, out, weft::GroupRank{root}, c.group); });
  return started;
}

Started start_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                        const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c,
                               async);
  int n = c.group.size(), me = c.group.rank();
  Started started;
  BlockBuffer blocks = BlockBuffer::uniform(recvbuf, recvcount, n, recvtype, "receive");
  weft::Tensor in = contribution(started, sendbuf, sendcount, sendtype, blocks, me);
  check_same_bytes(in, blocks.block(me));
  receive_into(started, blocks);
  weft::Tensor all = blocks.tensor();
  started.request = run_collective(
      async, [&] { weft::all_gather(in, all, c.group); },
      [&] { return weft::iall_gather(in, all, c.group); });
  return started;
}

Started start_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       const MPI_ABI_Comm& c, bool async) {
  if (c.inter)
    return intercomm_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, async);
  int n = c.group.size();
  Started started;
  BlockBuffer received = BlockBuffer::uniform(recvbuf, recvcount, n, recvtype, "receive");
  weft::Tensor all_in;
  if (sendbuf == MPI_IN_PLACE) {
    all_in = send_from(started, received);  // the core's all_to_all works in place
  } else {
    BlockBuffer sent = BlockBuffer::uniform(sendbuf, sendcount, n, sendtype, "send");
    check_same_bytes(sent.block(0), received.block(0));
    all_in = send_from(started, sent);
  }
  receive_into(started, received);
  weft::Tensor all_out = received.tensor();
  started.request = run_collective(
      async, [&] { weft::all_to_all(all_in, all_out, c.group); },
      [&] { return weft::iall_to_all(all_in, all_out, c.group); });
  return started;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
  return mpi_call("MPI_Barrier", comm,
                  [&] { wait_for(start_barrier(communicator(comm, "MPI_Barrier"), false)); });
}
WEFT_MPI_ALIAS(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ibarrier", comm, [&] {
    *request = as_request(start_barrier(communicator(comm, "MPI_Ibarrier"), true), comm);
  });
}
WEFT_MPI_ALIAS(Ibarrier)

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Bcast", comm, [&] {
    wait_for(start_bcast(buffer, count, datatype, root, communicator(comm, "MPI_Bcast"), false));
  });
}
WEFT_MPI_ALIAS(Bcast)

int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return mpi_call("MPI_Ibcast", comm, [&] {
    *request = as_request(
        start_bcast(buffer, count, datatype, root, communicator(comm, "MPI_Ibcast"), true), comm);
  });
}
WEFT_MPI_ALIAS(Ibcast)

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  return mpi_call("MPI_Reduce", comm, [&] {
    wait_for(start_rooted_reduce(sendbuf, recvbuf, count, datatype, op, root,
                                 communicator(comm, "MPI_Reduce"), false));
  });
}
WEFT_MPI_ALIAS(Reduce)

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ireduce", comm, [&] {
    *request = as_request(start_rooted_reduce(sendbuf, recvbuf, count, datatype, op, root,
                                              communicator(comm, "MPI_Ireduce"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ireduce)

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  return mpi_call("MPI_Allreduce", comm, [&] {
    wait_for(start_allreduce(sendbuf, recvbuf, count, datatype, op,
                             communicator(comm, "MPI_Allreduce"), false));
  });
}
WEFT_MPI_ALIAS(Allreduce)

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iallreduce", comm, [&] {
    *request = as_request(start_allreduce(sendbuf, recvbuf, count, datatype, op,
                                          communicator(comm, "MPI_Iallreduce"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iallreduce)

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Gather", comm, [&] {
    wait_for(start_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                          communicator(comm, "MPI_Gather"), false));
  });
}
WEFT_MPI_ALIAS(Gather)

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return mpi_call("MPI_Igather", comm, [&] {
    *request = as_request(start_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, communicator(comm, "MPI_Igather"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Igather)

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Scatter", comm, [&] {
    wait_for(start_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           communicator(comm, "MPI_Scatter"), false));
  });
}
WEFT_MPI_ALIAS(Scatter)

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return mpi_call("MPI_Iscatter", comm, [&] {
    *request = as_request(start_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, communicator(comm, "MPI_Iscatter"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iscatter)

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Allgather", comm, [&] {
    wait_for(start_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             communicator(comm, "MPI_Allgather"), false));
  });
}
WEFT_MPI_ALIAS(Allgather)

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Iallgather", comm, [&] {
    *request = as_request(start_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, communicator(comm, "MPI_Iallgather"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Iallgather)

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Alltoall", comm, [&] {
    wait_for(start_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            communicator(comm, "MPI_Alltoall"), false));
  });
}
WEFT_MPI_ALIAS(Alltoall)

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ialltoall", comm, [&] {
    *request = as_request(start_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         communicator(comm, "MPI_Ialltoall"), true),
                          comm);
  });
}
WEFT_MPI_ALIAS(Ialltoall)

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return mpi_call("MPI_Type_size", MPI_COMM_WORLD, [&] {
    size_t bytes = weft::mpi::datatype_size(datatype);
    *size = bytes > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(bytes);
  });
}
WEFT_MPI_ALIAS(Type_size)

}  // extern "C"

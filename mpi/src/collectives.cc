// Collectives. Data moves as bytes through the core's collectives. Reductions the core
// has (sum, prod, min, max and the bitwise ops on its integer and float types) run in
// the core; every other reduction is computed here: each rank's contribution is
// gathered and combined in rank order, x0 op (x1 op (... op x(n-1))), so every rank gets
// the same bits.
#include <cstring>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduce_ops.h"

using weft::mpi::comm_of;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

std::byte* at(void* base, uint64_t offset) { return static_cast<std::byte*>(base) + offset; }

weft::Tensor bytes_at(void* base, uint64_t offset, uint64_t bytes) {
  return weft::Tensor(at(base, offset), bytes, weft::DType::kUInt8);
}

// The sender's and the receiver's descriptions of one block must be the same size.
void check_same_bytes(const weft::Tensor& send, const weft::Tensor& recv) {
  if (send.bytes() != recv.bytes()) {
    throw MpiError(MPI_ERR_TRUNCATE, "the send block has " + std::to_string(send.bytes()) +
                                         " bytes but the receive block " +
                                         std::to_string(recv.bytes()));
  }
}

// Combines the n contributions laid out one after another in `all` into `out`.
void combine_in_rank_order(MPI_Op op, const weft::mpi::TypeInfo& type, int count, int n,
                           const std::vector<std::byte>& all, void* out) {
  size_t block = static_cast<size_t>(count) * type.extent;
  std::vector<std::byte> acc(all.end() - static_cast<std::ptrdiff_t>(block), all.end());
  for (int r = n - 2; r >= 0; --r) {
    weft::mpi::reduce_local(op, type, all.data() + static_cast<size_t>(r) * block, acc.data(),
                            static_cast<size_t>(count));
  }
  if (block > 0) std::memcpy(out, acc.data(), block);
}

// The reduction of every rank's `input` (count elements), into `output` on every rank
// (root < 0) or on `root` only.
void reduce_to(const void* input, void* output, int count, MPI_Datatype datatype, MPI_Op op,
               int root, const MPI_ABI_Comm& c) {
  const weft::mpi::TypeInfo& type = weft::mpi::type_info(datatype);
  weft::mpi::check_op(op, type);
  bool everyone = root < 0;
  bool receives = everyone || c.group.rank() == root;
  weft::Tensor in = weft::mpi::bytes_of(input, count, datatype, "send");
  weft::Tensor out = receives ? weft::mpi::bytes_of(output, count, datatype, "receive") : in;
  if (auto core_op = weft::mpi::core_op(op, type)) {
    weft::DType dtype = *weft::mpi::core_dtype(type.element);
    weft::Tensor typed_in(in.data(), static_cast<uint64_t>(count), dtype);
    weft::Tensor typed_out(out.data(), static_cast<uint64_t>(count), dtype);
    if (everyone) {
      weft::all_reduce(typed_in, typed_out, *core_op, c.group);
    } else {
      weft::reduce(typed_in, typed_out, root, *core_op, c.group);
    }
    return;
  }
  int n = c.group.size();
  std::vector<std::byte> all(in.bytes() * static_cast<size_t>(n));
  weft::Tensor gathered(all.data(), all.size(), weft::DType::kUInt8);
  if (everyone) {
    weft::all_gather(in, gathered, c.group);
  } else {
    weft::gather(in, gathered, root, c.group);
  }
  if (receives) combine_in_rank_order(op, type, count, n, all, output);
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
  return mpi_call("MPI_Barrier", comm, [&] {
    weft::mpi::require_initialized("MPI_Barrier");
    weft::barrier(comm_of(comm).group);
  });
}
WEFT_MPI_ALIAS(Barrier)

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Bcast", comm, [&] {
    weft::mpi::require_initialized("MPI_Bcast");
    const MPI_ABI_Comm& c = comm_of(comm);
    weft::Tensor bytes = weft::mpi::bytes_of(buffer, count, datatype, "broadcast");
    weft::broadcast(bytes, weft::mpi::checked_root(c, root), c.group);
  });
}
WEFT_MPI_ALIAS(Bcast)

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  return mpi_call("MPI_Reduce", comm, [&] {
    weft::mpi::require_initialized("MPI_Reduce");
    const MPI_ABI_Comm& c = comm_of(comm);
    weft::mpi::checked_root(c, root);
    bool at_root = c.group.rank() == root;
    if (sendbuf == MPI_IN_PLACE && !at_root) {
      throw MpiError(MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's alone");
    }
    reduce_to(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op, root, c);
  });
}
WEFT_MPI_ALIAS(Reduce)

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  return mpi_call("MPI_Allreduce", comm, [&] {
    weft::mpi::require_initialized("MPI_Allreduce");
    reduce_to(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op, -1,
              comm_of(comm));
  });
}
WEFT_MPI_ALIAS(Allreduce)

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Gather", comm, [&] {
    weft::mpi::require_initialized("MPI_Gather");
    const MPI_ABI_Comm& c = comm_of(comm);
    weft::mpi::checked_root(c, root);
    int n = c.group.size(), me = c.group.rank();
    if (me != root) {
      weft::Tensor in = weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
      weft::gather(in, weft::Tensor(), root, c.group);
      return;
    }
    weft::Tensor block = weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
    weft::Tensor all = bytes_at(recvbuf, 0, block.bytes() * static_cast<uint64_t>(n));
    // In place, the root's block is already where it belongs.
    weft::Tensor in =
        sendbuf == MPI_IN_PLACE
            ? bytes_at(recvbuf, block.bytes() * static_cast<uint64_t>(me), block.bytes())
            : weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
    check_same_bytes(in, block);
    weft::gather(in, all, root, c.group);
  });
}
WEFT_MPI_ALIAS(Gather)

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call("MPI_Scatter", comm, [&] {
    weft::mpi::require_initialized("MPI_Scatter");
    const MPI_ABI_Comm& c = comm_of(comm);
    weft::mpi::checked_root(c, root);
    int n = c.group.size(), me = c.group.rank();
    if (me != root) {
      weft::Tensor out = weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
      weft::scatter(weft::Tensor(), out, root, c.group);
      return;
    }
    weft::Tensor block = weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
    weft::Tensor all =
        bytes_at(const_cast<void*>(sendbuf), 0, block.bytes() * static_cast<uint64_t>(n));
    weft::Tensor out = recvbuf == MPI_IN_PLACE
                           ? bytes_at(const_cast<void*>(sendbuf),
                                      block.bytes() * static_cast<uint64_t>(me), block.bytes())
                           : weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
    check_same_bytes(block, out);
    weft::scatter(all, out, root, c.group);
  });
}
WEFT_MPI_ALIAS(Scatter)

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Allgather", comm, [&] {
    weft::mpi::require_initialized("MPI_Allgather");
    const MPI_ABI_Comm& c = comm_of(comm);
    int n = c.group.size(), me = c.group.rank();
    weft::Tensor block = weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
    weft::Tensor all = bytes_at(recvbuf, 0, block.bytes() * static_cast<uint64_t>(n));
    weft::Tensor in =
        sendbuf == MPI_IN_PLACE
            ? bytes_at(recvbuf, block.bytes() * static_cast<uint64_t>(me), block.bytes())
            : weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
    check_same_bytes(in, block);
    weft::all_gather(in, all, c.group);
  });
}
WEFT_MPI_ALIAS(Allgather)

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call("MPI_Alltoall", comm, [&] {
    weft::mpi::require_initialized("MPI_Alltoall");
    const MPI_ABI_Comm& c = comm_of(comm);
    uint64_t n = static_cast<uint64_t>(c.group.size());
    weft::Tensor block = weft::mpi::bytes_of(recvbuf, recvcount, recvtype, "receive");
    weft::Tensor all_out = bytes_at(recvbuf, 0, block.bytes() * n);
    // In place, the blocks to send are read from the receive buffer before it is written.
    std::vector<std::byte> copy;
    weft::Tensor all_in;
    if (sendbuf == MPI_IN_PLACE) {
      copy.assign(at(recvbuf, 0), at(recvbuf, all_out.bytes()));
      all_in = weft::Tensor(copy.data(), copy.size(), weft::DType::kUInt8);
    } else {
      weft::Tensor send_block = weft::mpi::bytes_of(sendbuf, sendcount, sendtype, "send");
      check_same_bytes(send_block, block);
      all_in = bytes_at(const_cast<void*>(sendbuf), 0, send_block.bytes() * n);
    }
    weft::all_to_all(all_in, all_out, c.group);
  });
}
WEFT_MPI_ALIAS(Alltoall)

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return mpi_call("MPI_Type_size", MPI_COMM_WORLD,
                  [&] { *size = static_cast<int>(weft::mpi::type_info(datatype).size); });
}
WEFT_MPI_ALIAS(Type_size)

}  // extern "C"

// The collectives on an intercommunicator. Each is one core all_to_allv over both
// groups (the intercommunicator's collective context), in which every rank sends only
// to, and receives only from, members of the other group: the root's group sends
// (Bcast, Scatter) or receives (Gather, Reduce), and in the all-to-all forms each group
// sends to the other. A receiver of a reduction gets every contribution of the other
// group and combines them in rank order, so a non-commutative operation keeps its
// order and every receiver gets the same bits. Barrier is the core's barrier over both
// groups: no process leaves before every process of the other group has entered.
#include "mpi/src/intercomm_collectives.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi/src/block_buffer.h"
#include "mpi/src/collective_helpers.h"
#include "mpi/src/errors.h"
#include "mpi/src/intercomm.h"
#include "mpi/src/objects.h"
#include "mpi/src/reduction.h"
#include "mpi/src/started.h"

namespace weft::mpi {
namespace {

// Bytes each rank of both groups gets from this one, and sends it: counts and
// displacements in the core's all_to_allv input and output tensors.
struct Plan {
  explicit Plan(int size)
      : send_counts(static_cast<size_t>(size)),
        send_displs(static_cast<size_t>(size)),
        recv_counts(static_cast<size_t>(size)),
        recv_displs(static_cast<size_t>(size)) {}
  void send(int to, uint64_t displ, uint64_t bytes) {
    send_counts[static_cast<size_t>(to)] = bytes;
    send_displs[static_cast<size_t>(to)] = displ;
  }
  void receive(int from, uint64_t displ, uint64_t bytes) {
    recv_counts[static_cast<size_t>(from)] = bytes;
    recv_displs[static_cast<size_t>(from)] = displ;
  }
  std::vector<uint64_t> send_counts, send_displs, recv_counts, recv_displs;
};

weft::Tensor no_bytes() { return weft::Tensor(nullptr, 0, weft::DType::kUInt8); }

// The call's communicator, which the dispatch found to be an intercommunicator.
struct Call {
  Call(MPI_Comm comm, const char* function)
      : c(communicator(comm, function)),
        remote_size(static_cast<int>(c.remote_world_ranks.size())),
        plan(c.collective_group.size()) {}
  // The core's rank of remote rank `r`.
  int remote(int r) const { return c.remote_offset + r; }

  const MPI_ABI_Comm& c;
  int remote_size;
  Plan plan;
  Started started;
  weft::Tensor in = no_bytes(), out = no_bytes();
};

// The core's all_to_allv for the plan, with what remains to do after it.
Started run(Call& call, bool async) {
  auto plan = std::make_shared<Plan>(std::move(call.plan));
  call.started.keep(plan);
  const weft::Group& group = call.c.collective_group;
  call.started.request = run_collective(
      async,
      [&] {
        weft::all_to_allv(call.in, plan->send_counts, plan->send_displs, call.out,
                          plan->recv_counts, plan->recv_displs, group);
      },
      [&] {
        return weft::iall_to_allv(call.in, plan->send_counts, plan->send_displs, call.out,
                                  plan->recv_counts, plan->recv_displs, group);
      });
  return std::move(call.started);
}

// The blocking form waits; the non-blocking one hands out its request.
template <typename Body>
int collective(const char* blocking, const char* nonblocking, MPI_Comm comm, MPI_Request* request,
               Body body) {
  const char* function = request != nullptr ? nonblocking : blocking;
  return mpi_call(function, comm, [&] {
    Call call(comm, function);
    body(call);
    Started started = run(call, request != nullptr);
    if (request != nullptr) {
      *request = as_request(std::move(started), comm);
    } else {
      wait_for(std::move(started));
    }
  });
}

// What a rooted collective's `root` makes this process: the root (MPI_ROOT), another
// member of the root's group (MPI_PROC_NULL), or a member of the other group, whose
// root is then remote rank `root`.
enum class Role { kRoot, kIdle, kLeaf };

Role role_of(const Call& call, int root) {
  if (root == MPI_ROOT) return Role::kRoot;
  if (root == MPI_PROC_NULL) return Role::kIdle;
  if (root < 0 || root >= call.remote_size) {
    throw MpiError(MPI_ERR_ROOT, "root " + std::to_string(root) +
                                     " is neither MPI_ROOT, MPI_PROC_NULL nor a rank in [0, " +
                                     std::to_string(call.remote_size) + ") of the remote group");
  }
  return Role::kLeaf;
}

void require_not_in_place(const void* buffer, const char* what) {
  if (buffer == MPI_IN_PLACE) {
    throw MpiError(MPI_ERR_BUFFER,
                   std::string(what) + " is MPI_IN_PLACE, which intercommunicators do not take");
  }
}

// Sends `buffer` whole to every remote rank.
void send_to_all(Call& call, const BlockBuffer& buffer) {
  call.in = send_from(call.started, buffer);
  for (int r = 0; r < call.remote_size; ++r) call.plan.send(call.remote(r), 0, call.in.bytes());
}

// Sends block r of `blocks` to remote rank r.
void send_blocks(Call& call, const BlockBuffer& blocks) {
  call.in = send_from(call.started, blocks);
  for (int r = 0; r < call.remote_size; ++r) {
    call.plan.send(call.remote(r), blocks.offsets()[static_cast<size_t>(r)], blocks.block_bytes(r));
  }
}

// Receives block r of `blocks` from remote rank r.
void receive_blocks(Call& call, const BlockBuffer& blocks) {
  call.out = blocks.tensor();
  receive_into(call.started, blocks);
  for (int r = 0; r < call.remote_size; ++r) {
    call.plan.receive(call.remote(r), blocks.offsets()[static_cast<size_t>(r)],
                      blocks.block_bytes(r));
  }
}

// Receives `bytes` from each remote rank, one after another in scratch memory, and
// returns that memory.
std::shared_ptr<std::vector<std::byte>> receive_contributions(Call& call, uint64_t bytes) {
  auto all =
      std::make_shared<std::vector<std::byte>>(bytes * static_cast<uint64_t>(call.remote_size));
  call.started.keep(all);
  call.out = weft::Tensor(all->data(), all->size(), weft::DType::kUInt8);
  for (int r = 0; r < call.remote_size; ++r) {
    call.plan.receive(call.remote(r), bytes * static_cast<uint64_t>(r), bytes);
  }
  return all;
}

// Receives every remote rank's `count` elements and combines them, in rank order, into
// `recvbuf`; `first` elements into each contribution starts the part combined (a
// reduce-scatter's share), of `part` elements.
void reduce_into(Call& call, void* recvbuf, uint64_t whole_bytes, const Reduction& part,
                 uint64_t first_byte, int part_count, MPI_Datatype datatype) {
  std::shared_ptr<std::vector<std::byte>> all = receive_contributions(call, whole_bytes);
  BlockBuffer result = BlockBuffer::single(recvbuf, part_count, datatype, "receive");
  int n = call.remote_size;
  call.started.then([part, all, whole_bytes, first_byte, n, result = result.tensor()] {
    uint64_t bytes = part.bytes();
    if (bytes == 0) return;
    std::vector<std::byte> parts(bytes * static_cast<uint64_t>(n));
    for (int r = 0; r < n; ++r) {
      std::memcpy(parts.data() + bytes * static_cast<uint64_t>(r),
                  all->data() + whole_bytes * static_cast<uint64_t>(r) + first_byte, bytes);
    }
    part.combine(0, n - 1, parts.data(), static_cast<std::byte*>(result.data()));
  });
  receive_into(call.started, result);
}

// Reduce_scatter's: this rank's share of every contribution of `recvcounts` (local).
void reduce_scatter(Call& call, const void* sendbuf, void* recvbuf,
                    const std::vector<int>& recvcounts, MPI_Datatype datatype, MPI_Op op) {
  require_not_in_place(sendbuf, "sendbuf");
  uint64_t total = 0, before = 0;
  int me = local_rank(call.c);
  for (size_t i = 0; i < recvcounts.size(); ++i) {
    if (recvcounts[i] < 0) {
      throw MpiError(MPI_ERR_COUNT, "recvcounts[" + std::to_string(i) +
                                        "] = " + std::to_string(recvcounts[i]) + " is negative");
    }
    if (static_cast<int>(i) < me) before += static_cast<uint64_t>(recvcounts[i]);
    total += static_cast<uint64_t>(recvcounts[i]);
  }
  if (total > INT32_MAX) throw MpiError(MPI_ERR_COUNT, "the recvcounts sum past INT_MAX");
  Reduction whole(op, datatype, static_cast<int>(total));
  int mine = recvcounts[static_cast<size_t>(me)];
  Reduction part(op, datatype, mine);
  send_to_all(call, BlockBuffer::single(sendbuf, static_cast<int>(total), datatype, "send"));
  reduce_into(call, recvbuf, whole.bytes(), part, before * whole.element_bytes(), mine, datatype);
}

}  // namespace

int intercomm_barrier(MPI_Comm comm, MPI_Request* request) {
  const char* function = request != nullptr ? "MPI_Ibarrier" : "MPI_Barrier";
  return mpi_call(function, comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, function);
    Started started = Started::of(run_collective(
        request != nullptr, [&] { weft::barrier(c.collective_group); },
        [&] { return weft::ibarrier(c.collective_group); }));
    if (request != nullptr) {
      *request = as_request(std::move(started), comm);
    } else {
      wait_for(std::move(started));
    }
  });
}

int intercomm_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  return collective("MPI_Bcast", "MPI_Ibcast", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kIdle) return;
    BlockBuffer data = BlockBuffer::single(buffer, count, datatype, "broadcast");
    if (role == Role::kRoot) {
      send_to_all(call, data);
    } else {
      call.out = data.tensor();
      receive_into(call.started, data);
      call.plan.receive(call.remote(root), 0, call.out.bytes());
    }
  });
}

int intercomm_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request* request) {
  return collective("MPI_Gather", "MPI_Igather", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      receive_blocks(
          call, BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
    } else if (role == Role::kLeaf) {
      require_not_in_place(sendbuf, "sendbuf");
      call.in = send_from(call.started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
      call.plan.send(call.remote(root), 0, call.in.bytes());
    }
  });
}

int intercomm_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Gatherv", "MPI_Igatherv", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, displs, call.remote_size,
                                                recvtype, "recvcounts", "displs"));
    } else if (role == Role::kLeaf) {
      require_not_in_place(sendbuf, "sendbuf");
      call.in = send_from(call.started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
      call.plan.send(call.remote(root), 0, call.in.bytes());
    }
  });
}

int intercomm_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request* request) {
  return collective("MPI_Scatter", "MPI_Iscatter", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      send_blocks(call,
                  BlockBuffer::uniform(sendbuf, sendcount, call.remote_size, sendtype, "send"));
    } else if (role == Role::kLeaf) {
      require_not_in_place(recvbuf, "recvbuf");
      BlockBuffer data = BlockBuffer::single(recvbuf, recvcount, recvtype, "receive");
      call.out = data.tensor();
      receive_into(call.started, data);
      call.plan.receive(call.remote(root), 0, call.out.bytes());
    }
  });
}

int intercomm_scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Scatterv", "MPI_Iscatterv", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      send_blocks(call, BlockBuffer::varying(sendbuf, sendcounts, displs, call.remote_size,
                                             sendtype, "sendcounts", "displs"));
    } else if (role == Role::kLeaf) {
      require_not_in_place(recvbuf, "recvbuf");
      BlockBuffer data = BlockBuffer::single(recvbuf, recvcount, recvtype, "receive");
      call.out = data.tensor();
      receive_into(call.started, data);
      call.plan.receive(call.remote(root), 0, call.out.bytes());
    }
  });
}

int intercomm_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Allgather", "MPI_Iallgather", comm, request, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_to_all(call, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
    receive_blocks(call,
                   BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
  });
}

int intercomm_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Allgatherv", "MPI_Iallgatherv", comm, request, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_to_all(call, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
    receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, displs, call.remote_size,
                                              recvtype, "recvcounts", "displs"));
  });
}

int intercomm_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Alltoall", "MPI_Ialltoall", comm, request, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_blocks(call, BlockBuffer::uniform(sendbuf, sendcount, call.remote_size, sendtype, "send"));
    receive_blocks(call,
                   BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
  });
}

int intercomm_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request* request) {
  return collective("MPI_Alltoallv", "MPI_Ialltoallv", comm, request, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_blocks(call, BlockBuffer::varying(sendbuf, sendcounts, sdispls, call.remote_size, sendtype,
                                           "sendcounts", "sdispls"));
    receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, rdispls, call.remote_size,
                                              recvtype, "recvcounts", "rdispls"));
  });
}

int intercomm_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Reduce", "MPI_Ireduce", comm, request, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kIdle) return;
    Reduction reduction(op, datatype, count);
    if (role == Role::kRoot) {
      reduce_into(call, recvbuf, reduction.bytes(), reduction, 0, count, datatype);
    } else {
      require_not_in_place(sendbuf, "sendbuf");
      call.in = send_from(call.started, BlockBuffer::single(sendbuf, count, datatype, "send"));
      call.plan.send(call.remote(root), 0, call.in.bytes());
    }
  });
}

int intercomm_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return collective("MPI_Allreduce", "MPI_Iallreduce", comm, request, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    Reduction reduction(op, datatype, count);
    send_to_all(call, BlockBuffer::single(sendbuf, count, datatype, "send"));
    reduce_into(call, recvbuf, reduction.bytes(), reduction, 0, count, datatype);
  });
}

int intercomm_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Request* request) {
  return collective("MPI_Reduce_scatter", "MPI_Ireduce_scatter", comm, request, [&](Call& call) {
    int n = local_size(call.c);
    if (recvcounts == nullptr) throw MpiError(MPI_ERR_ARG, "recvcounts is NULL");
    reduce_scatter(call, sendbuf, recvbuf, std::vector<int>(recvcounts, recvcounts + n), datatype,
                   op);
  });
}

int intercomm_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request* request) {
  return collective("MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", comm, request,
                    [&](Call& call) {
                      std::vector<int> counts(static_cast<size_t>(local_size(call.c)), recvcount);
                      reduce_scatter(call, sendbuf, recvbuf, counts, datatype, op);
                    });
}

int intercomm_refused(const char* function, MPI_Comm comm) {
  return handle_error(comm, function, MPI_ERR_COMM,
                      "the communicator is an intercommunicator; the standard defines this "
                      "collective on intracommunicators only");
}

}  // namespace weft::mpi

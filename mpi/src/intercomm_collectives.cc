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
  explicit Call(const MPI_ABI_Comm& comm)
      : c(comm),
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

// The collective `body` plans, started; the caller waits for it (the blocking forms) or
// hands it out as a request.
template <typename Body>
Started collective(const MPI_ABI_Comm& c, bool async, Body body) {
  Call call(c);
  body(call);
  return run(call, async);
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

// A leaf's part of a gathering to, or a reduction at, remote rank `root`.
void send_to_root(Call& call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  int root) {
  require_not_in_place(sendbuf, "sendbuf");
  call.in = send_from(call.started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
  call.plan.send(call.remote(root), 0, call.in.bytes());
}

// A leaf's part of a scattering from remote rank `root`.
void receive_from_root(Call& call, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       int root) {
  require_not_in_place(recvbuf, "recvbuf");
  BlockBuffer data = BlockBuffer::single(recvbuf, recvcount, recvtype, "receive");
  call.out = data.tensor();
  receive_into(call.started, data);
  call.plan.receive(call.remote(root), 0, call.out.bytes());
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
                 uint64_t first_byte, MPI_Count part_count, MPI_Datatype datatype) {
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

// Reduce_scatter's: this rank's share of every contribution of `recvcounts` (one per
// rank of the local group).
void reduce_scatter(Call& call, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                    MPI_Datatype datatype, MPI_Op op) {
  require_not_in_place(sendbuf, "sendbuf");
  if (recvcounts.null()) throw MpiError(MPI_ERR_ARG, "recvcounts is NULL");
  int64_t total = 0, before = 0;
  int me = local_rank(call.c), n = local_size(call.c);
  for (int i = 0; i < n; ++i) {
    if (recvcounts[i] < 0) {
      throw MpiError(MPI_ERR_COUNT, "recvcounts[" + std::to_string(i) +
                                        "] = " + std::to_string(recvcounts[i]) + " is negative");
    }
    if (i == me) before = total;
    if (__builtin_add_overflow(total, recvcounts[i], &total)) {
      throw MpiError(MPI_ERR_COUNT, "the recvcounts add up to more than an MPI_Count holds");
    }
  }
  Reduction whole(op, datatype, total);
  MPI_Count mine = recvcounts[me];
  Reduction part(op, datatype, mine);
  send_to_all(call, BlockBuffer::single(sendbuf, total, datatype, "send"));
  reduce_into(call, recvbuf, whole.bytes(), part,
              static_cast<uint64_t>(before) * whole.element_bytes(), mine, datatype);
}

}  // namespace

bool intercomm_is_root(const MPI_ABI_Comm& c, int root) {
  Call call(c);
  return role_of(call, root) == Role::kRoot;
}

int peer_count(const MPI_ABI_Comm& c) {
  return c.inter ? static_cast<int>(c.remote_world_ranks.size()) : c.group.size();
}

Started intercomm_barrier(const MPI_ABI_Comm& c, bool async) {
  return Started::of(run_collective(
      async, [&] { weft::barrier(c.collective_group); },
      [&] { return weft::ibarrier(c.collective_group); }));
}

Started intercomm_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
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

Started intercomm_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      receive_blocks(
          call, BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
    } else if (role == Role::kLeaf) {
      send_to_root(call, sendbuf, sendcount, sendtype, root);
    }
  });
}

Started intercomm_gatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, CountArray recvcounts, CountArray displs,
                          MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, displs, call.remote_size,
                                                recvtype, "recvcounts", "displs"));
    } else if (role == Role::kLeaf) {
      send_to_root(call, sendbuf, sendcount, sendtype, root);
    }
  });
}

Started intercomm_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      send_blocks(call,
                  BlockBuffer::uniform(sendbuf, sendcount, call.remote_size, sendtype, "send"));
    } else if (role == Role::kLeaf) {
      receive_from_root(call, recvbuf, recvcount, recvtype, root);
    }
  });
}

Started intercomm_scatterv(const void* sendbuf, CountArray sendcounts, CountArray displs,
                           MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kRoot) {
      send_blocks(call, BlockBuffer::varying(sendbuf, sendcounts, displs, call.remote_size,
                                             sendtype, "sendcounts", "displs"));
    } else if (role == Role::kLeaf) {
      receive_from_root(call, recvbuf, recvcount, recvtype, root);
    }
  });
}

Started intercomm_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_to_all(call, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
    receive_blocks(call,
                   BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
  });
}

Started intercomm_allgatherv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, CountArray recvcounts, CountArray displs,
                             MPI_Datatype recvtype, const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_to_all(call, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
    receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, displs, call.remote_size,
                                              recvtype, "recvcounts", "displs"));
  });
}

Started intercomm_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_blocks(call, BlockBuffer::uniform(sendbuf, sendcount, call.remote_size, sendtype, "send"));
    receive_blocks(call,
                   BlockBuffer::uniform(recvbuf, recvcount, call.remote_size, recvtype, "receive"));
  });
}

Started intercomm_alltoallv(const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                            MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts,
                            CountArray rdispls, MPI_Datatype recvtype, const MPI_ABI_Comm& c,
                            bool async) {
  return collective(c, async, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    send_blocks(call, BlockBuffer::varying(sendbuf, sendcounts, sdispls, call.remote_size, sendtype,
                                           "sendcounts", "sdispls"));
    receive_blocks(call, BlockBuffer::varying(recvbuf, recvcounts, rdispls, call.remote_size,
                                              recvtype, "recvcounts", "rdispls"));
  });
}

Started intercomm_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, int root, const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    Role role = role_of(call, root);
    if (role == Role::kIdle) return;
    Reduction reduction(op, datatype, count);
    if (role == Role::kRoot) {
      reduce_into(call, recvbuf, reduction.bytes(), reduction, 0, count, datatype);
    } else {
      send_to_root(call, sendbuf, count, datatype, root);
    }
  });
}

Started intercomm_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c, bool async) {
  return collective(c, async, [&](Call& call) {
    require_not_in_place(sendbuf, "sendbuf");
    Reduction reduction(op, datatype, count);
    send_to_all(call, BlockBuffer::single(sendbuf, count, datatype, "send"));
    reduce_into(call, recvbuf, reduction.bytes(), reduction, 0, count, datatype);
  });
}

Started intercomm_reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts,
                                 MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                 bool async) {
  return collective(c, async, [&](Call& call) {
    reduce_scatter(call, sendbuf, recvbuf, recvcounts, datatype, op);
  });
}

Started intercomm_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, const MPI_ABI_Comm& c,
                                       bool async) {
  return collective(c, async, [&](Call& call) {
    std::vector<MPI_Count> counts(static_cast<size_t>(local_size(call.c)), recvcount);
    reduce_scatter(call, sendbuf, recvbuf, counts.data(), datatype, op);
  });
}

}  // namespace weft::mpi

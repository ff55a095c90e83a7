// Partitioned communication (MPI_Psend_init, MPI_Precv_init): persistent requests whose
// buffer is `partitions` runs of `count` elements. The whole buffer travels as one
// message, sent once the program has marked every partition ready (MPI_Pready and its
// range and list forms); so the send and receive sides may partition differently, as the
// standard allows, and MPI_Parrived reports a partition arrived once the whole message
// is in. Until its last partition is ready a started send is not done (`held`).
//
// The message matches like a persistent request's, by source, tag and communicator on
// the communicator's own matching space: a program that uses one tag for partitioned
// and ordinary messages between the same pair on one communicator could see them
// cross-match.
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"

using weft::mpi::communicator;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::Message;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace weft::mpi {

struct Partitioned {
  Message message;  // the whole buffer
  bool send = false;
  int partitions = 0;
  std::vector<bool> ready;  // send: by partition, since the last start
  int unready = 0;
  // The peer and tag as the core knows them, and where they are.
  int peer = -1;
  int tag = 0;
  weft::Group group;

  weft::Request send_whole() const {
    return weft::isend(message.tensor(), weft::GroupRank{peer}, tag, group);
  }
  weft::Request receive_whole() const {
    return weft::irecv(message.tensor(), weft::GroupRank{peer}, tag, group);
  }
};

}  // namespace weft::mpi

using weft::mpi::Partitioned;

namespace {

MPI_Count total_count(int partitions, MPI_Count count) {
  if (partitions < 0) {
    throw MpiError(MPI_ERR_ARG, "partitions " + std::to_string(partitions) + " is negative");
  }
  if (count < 0) throw MpiError(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  MPI_Count total;
  if (__builtin_mul_overflow(static_cast<MPI_Count>(partitions), count, &total)) {
    throw MpiError(MPI_ERR_COUNT, "partitions * count overflows an MPI_Count");
  }
  return total;
}

MPI_Request make_partitioned(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                             int peer, int tag, MPI_Comm comm, bool send, const char* function) {
  weft::mpi::require_initialized(function);
  const MPI_ABI_Comm& c = communicator(comm, function);
  MPI_Count total = total_count(partitions, count);
  auto state = std::make_shared<Partitioned>();
  state->message = send ? Message::outgoing(buf, total, datatype, "send")
                        : Message::incoming(buf, total, datatype, "receive");
  state->send = send;
  state->partitions = partitions;
  state->ready.assign(static_cast<size_t>(partitions), false);
  // Neither wildcard is allowed: a partitioned pair is fixed at initialisation.
  int core_tag_value = core_tag(tag, false);
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->is_receive = !send;
  r->more().partitioned = state;
  if (peer == MPI_PROC_NULL) {
    r->proc_null = true;
    r->more().restart = [state](MPI_ABI_Request&) {
      state->ready.assign(state->ready.size(), false);
      state->unready = state->partitions;
    };
    return r;
  }
  state->peer = core_rank(c, peer, false, send ? "destination" : "source");
  state->tag = core_tag_value;
  state->group = c.group;
  if (send) {
    r->more().held = [state] { return state->unready > 0; };
    r->more().restart = [state](MPI_ABI_Request& started) {
      state->ready.assign(state->ready.size(), false);
      state->unready = state->partitions;
      if (state->unready == 0) started.request = state->send_whole();
    };
    return r;
  }
  r->more().restart = [state](MPI_ABI_Request& started) {
    started.request = state->receive_whole();
    if (state->message.keep_alive()) {
      started.more().finish = [state, received = started.request] {
        state->message.unpack(received.bytes());
      };
    }
  };
  return r;
}

// The active partitioned request behind `request`, of the side `send` says.
MPI_ABI_Request& active_partitioned(MPI_Request request, bool send) {
  MPI_ABI_Request& r = weft::mpi::request_of(request);
  if (!r.extras().partitioned || r.extras().partitioned->send != send) {
    throw MpiError(MPI_ERR_REQUEST,
                   std::string("not a partitioned ") + (send ? "send" : "receive") + " request");
  }
  if (!r.active) throw MpiError(MPI_ERR_REQUEST, "the partitioned request is not active");
  return r;
}

void check_partition(const Partitioned& state, int partition) {
  if (partition < 0 || partition >= state.partitions) {
    throw MpiError(MPI_ERR_ARG, "partition " + std::to_string(partition) + " is outside [0, " +
                                    std::to_string(state.partitions) + ")");
  }
}

// Marks `partition` of the send ready; the last one sends the buffer.
void ready(MPI_ABI_Request& r, int partition) {
  Partitioned& state = *r.extras().partitioned;
  check_partition(state, partition);
  if (state.ready[static_cast<size_t>(partition)]) {
    throw MpiError(MPI_ERR_ARG,
                   "partition " + std::to_string(partition) + " is already marked ready");
  }
  state.ready[static_cast<size_t>(partition)] = true;
  if (--state.unready > 0 || r.proc_null) return;
  state.message.pack();
  r.request = state.send_whole();
}

MPI_Comm comm_of_request(MPI_Request request) {
  try {
    return weft::mpi::request_of(request).comm;
  } catch (const MpiError&) {
    return MPI_COMM_WORLD;
  }
}

}  // namespace

extern "C" {

int PMPI_Psend_init(const void* buf, int partitions, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Psend_init", comm, [&] {
    weft::mpi::require_pointer(request, "request");
    *request = make_partitioned(const_cast<void*>(buf), partitions, count, datatype, dest, tag,
                                comm, true, "MPI_Psend_init");
  });
}
WEFT_MPI_ALIAS(Psend_init)

int PMPI_Psend_init_c(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Psend_init_c", comm, [&] {
    weft::mpi::require_pointer(request, "request");
    *request = make_partitioned(const_cast<void*>(buf), partitions, count, datatype, dest, tag,
                                comm, true, "MPI_Psend_init_c");
  });
}
WEFT_MPI_ALIAS(Psend_init_c)

int PMPI_Precv_init(void* buf, int partitions, int count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Precv_init", comm, [&] {
    weft::mpi::require_pointer(request, "request");
    *request = make_partitioned(buf, partitions, count, datatype, source, tag, comm, false,
                                "MPI_Precv_init");
  });
}
WEFT_MPI_ALIAS(Precv_init)

int PMPI_Precv_init_c(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return mpi_call("MPI_Precv_init_c", comm, [&] {
    weft::mpi::require_pointer(request, "request");
    *request = make_partitioned(buf, partitions, count, datatype, source, tag, comm, false,
                                "MPI_Precv_init_c");
  });
}
WEFT_MPI_ALIAS(Precv_init_c)

int PMPI_Pready(int partition, MPI_Request request) {
  return mpi_call("MPI_Pready", comm_of_request(request),
                  [&] { ready(active_partitioned(request, true), partition); });
}
WEFT_MPI_ALIAS(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  return mpi_call("MPI_Pready_range", comm_of_request(request), [&] {
    MPI_ABI_Request& r = active_partitioned(request, true);
    check_partition(*r.extras().partitioned, partition_low);
    check_partition(*r.extras().partitioned, partition_high);
    for (int p = partition_low; p <= partition_high; ++p) ready(r, p);
  });
}
WEFT_MPI_ALIAS(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  return mpi_call("MPI_Pready_list", comm_of_request(request), [&] {
    MPI_ABI_Request& r = active_partitioned(request, true);
    if (length < 0)
      throw MpiError(MPI_ERR_ARG, "length " + std::to_string(length) + " is negative");
    if (length > 0) weft::mpi::require_pointer(array_of_partitions, "array_of_partitions");
    for (int i = 0; i < length; ++i)
      check_partition(*r.extras().partitioned, array_of_partitions[i]);
    for (int i = 0; i < length; ++i) ready(r, array_of_partitions[i]);
  });
}
WEFT_MPI_ALIAS(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  return mpi_call("MPI_Parrived", comm_of_request(request), [&] {
    weft::mpi::require_pointer(flag, "flag");
    MPI_ABI_Request& r = weft::mpi::request_of(request);
    if (!r.extras().partitioned || r.extras().partitioned->send) {
      throw MpiError(MPI_ERR_REQUEST, "not a partitioned receive request");
    }
    check_partition(*r.extras().partitioned, partition);
    // An inactive request's data has all arrived (or none is expected).
    if (!r.active || r.proc_null) {
      *flag = 1;
      return;
    }
    *flag = r.request.is_completed() ? 1 : 0;
    // A staged buffer is spread out now, so that the partition is in place; completing
    // the request does it again, harmlessly.
    if (*flag && !r.request.cancelled()) r.extras().partitioned->message.unpack(r.request.bytes());
  });
}
WEFT_MPI_ALIAS(Parrived)

}  // extern "C"

// Point-to-point messages. Every message travels as bytes: the core's receive takes the
// first message matching source and tag, in order, which is MPI's matching rule, and
// refuses one larger than the buffer (MPI_ERR_TRUNCATE) without writing anything.
// Each function and its large-count form (MPI_Send_c...) share one body whose count is
// an MPI_Count: a message's size is computed in 64 bits from there on.
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/datatypes.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"
#include "mpi/src/requests.h"
#include "runtime/api/prechecked_p2p.h"

using weft::mpi::comm_of;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::Message;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// A point-to-point call's arguments in the common case, resolved with no Message built
// and no check that can fail left: elements of a dense predefined type
// (dense_predefined_size) on an intracommunicator of an initialised MPI, a peer that is
// one of its ranks (or MPI_ANY_SOURCE for a receive) and a tag the core takes. `comm`
// stays null for anything else (MPI_PROC_NULL, derived types, intercommunicators,
// errors), which the general path then handles and reports. A blocking 8-byte send
// spent about 250 of its 1,240 instructions building the Message and checking the rank.
// What it checks are the core API's checks too, so a plain message goes to the core's
// pre-checked calls (runtime/api/prechecked_p2p.h), which skip them: about 200
// instructions more per call.
struct PlainMessage {
  const MPI_ABI_Comm* comm = nullptr;
  weft::Tensor tensor;
  int peer = 0;  // the core's group rank, or weft::kAnySource
  int tag = 0;   // the core's tag, or weft::kAnyTag
};

PlainMessage plain_message(const void* buf, MPI_Count count, MPI_Datatype datatype, int peer,
                           int tag, MPI_Comm comm, bool receiving) {
  PlainMessage m;
  const weft::mpi::LibraryState& lib = weft::mpi::library();
  const MPI_ABI_Comm* c = weft::mpi::comm_or_null(comm);
  const uint64_t size = weft::mpi::dense_predefined_size(datatype);
  uint64_t bytes = 0;
  if (!lib.initialized || lib.finalized || c == nullptr || c->inter || size == 0 || count < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(count), size, &bytes) ||
      (buf == nullptr && bytes > 0) || bytes > static_cast<uint64_t>(PTRDIFF_MAX) ||
      reinterpret_cast<uintptr_t>(buf) > UINTPTR_MAX - bytes) {
    return m;
  }
  const bool any_source = receiving && peer == MPI_ANY_SOURCE;
  if (!any_source && (peer < 0 || static_cast<size_t>(peer) >= c->world_ranks.size())) return m;
  const bool any_tag = receiving && tag == MPI_ANY_TAG;
  if (!any_tag && tag < 0) return m;
  m.comm = c;
  m.tensor = weft::Tensor(const_cast<void*>(buf), bytes, weft::DType::kUInt8);
  m.peer = any_source ? weft::kAnySource : peer;
  m.tag = any_tag ? weft::kAnyTag : tag;
  return m;
}

int send(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
         int tag, MPI_Comm comm) {
  return mpi_call(function, comm, [&] {
    if (PlainMessage m = plain_message(buf, count, datatype, dest, tag, comm, false); m.comm) {
      weft::runtime::send_prechecked(m.tensor, m.peer, m.tag, m.comm->group);
      return;
    }
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message message = Message::outgoing(buf, count, datatype, "send");
    int core_tag_value = core_tag(tag, false);
    if (dest == MPI_PROC_NULL) return;
    weft::send(message.tensor(), weft::GroupRank{core_rank(c, dest, false, "destination")},
               core_tag_value, c.group);
  });
}

int recv(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
         int tag, MPI_Comm comm, MPI_Status* status) {
  return mpi_call(function, comm, [&] {
    if (PlainMessage m = plain_message(buf, count, datatype, source, tag, comm, true); m.comm) {
      weft::RecvResult r = weft::runtime::recv_prechecked(m.tensor, m.peer, m.tag, m.comm->group);
      weft::mpi::set_status(status, r.group_source, r.tag, r.bytes);
      return;
    }
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message message = Message::incoming(buf, count, datatype, "receive");
    int core_tag_value = core_tag(tag, true);
    if (source == MPI_PROC_NULL) {
      weft::mpi::set_proc_null_status(status);
      return;
    }
    // One blocking receive: no request to allocate, and no progress thread to wake.
    weft::RecvResult r =
        weft::recv(message.tensor(), weft::GroupRank{core_rank(c, source, true, "source")},
                   core_tag_value, c.group);
    message.unpack(r.bytes);
    weft::mpi::set_status(status, weft::mpi::comm_source(c, r.group_source), r.tag, r.bytes);
  });
}

int isend(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm, MPI_Request* request) {
  if (PlainMessage m = plain_message(buf, count, datatype, dest, tag, comm, false); m.comm) {
    return mpi_call(function, comm, [&] {  // as irecv's
      weft::Request posted =
          weft::runtime::isend_prechecked(m.tensor, m.peer, m.tag, m.comm->group);
      auto* r = new MPI_ABI_Request();
      r->comm = comm;
      r->request = std::move(posted);
      *request = r;
    });
  }
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message message = Message::outgoing(buf, count, datatype, "send");
    int core_tag_value = core_tag(tag, false);
    int peer = dest == MPI_PROC_NULL ? -1 : core_rank(c, dest, false, "destination");
    auto* r = new MPI_ABI_Request();
    r->comm = comm;
    r->proc_null = peer < 0;
    if (peer >= 0)
      r->request = weft::isend(message.tensor(), weft::GroupRank{peer}, core_tag_value, c.group);
    r->more().keep_alive = message.keep_alive();  // a packed copy goes out from there
    *request = r;
  });
}

int irecv(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype, int source,
          int tag, MPI_Comm comm, MPI_Request* request) {
  if (PlainMessage m = plain_message(buf, count, datatype, source, tag, comm, true); m.comm) {
    // A body of its own, small enough to inline into mpi_call's; the request is made
    // once the core has taken the receive.
    return mpi_call(function, comm, [&] {
      weft::Request posted =
          weft::runtime::irecv_prechecked(m.tensor, m.peer, m.tag, m.comm->group);
      auto* r = new MPI_ABI_Request();
      r->comm = comm;
      r->is_receive = true;
      r->request = std::move(posted);
      *request = r;
    });
  }
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message message = Message::incoming(buf, count, datatype, "receive");
    int core_tag_value = core_tag(tag, true);
    int peer = source == MPI_PROC_NULL ? -2 : core_rank(c, source, true, "source");
    auto* r = new MPI_ABI_Request();
    r->comm = comm;
    r->is_receive = true;
    r->source_offset = c.remote_offset;
    r->proc_null = peer == -2;
    if (!r->proc_null) {
      r->request = weft::irecv(message.tensor(), weft::GroupRank{peer}, core_tag_value, c.group);
      if (message.keep_alive()) {
        // Staged: the message is spread into the program's buffer once it is in.
        r->more().finish = [message, received = r->request] { message.unpack(received.bytes()); };
      }
    }
    *request = r;
  });
}

int sendrecv(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message out = Message::outgoing(sendbuf, sendcount, sendtype, "send");
    Message in = Message::incoming(recvbuf, recvcount, recvtype, "receive");
    weft::Request received =
        weft::mpi::exchange(c, out.tensor(), dest, sendtag, in.tensor(), source, recvtag);
    if (!received.valid()) {
      weft::mpi::set_proc_null_status(status);
      return;
    }
    received.wait();
    in.unpack(received.bytes());
    weft::mpi::set_status(status, weft::mpi::comm_source(c, received.group_source()),
                          received.tag(), received.bytes());
  });
}

}  // namespace

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return send("MPI_Send", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Send)

int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send("MPI_Send_c", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Send_c)

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  return recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}
WEFT_MPI_ALIAS(Recv)

int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status* status) {
  return recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}
WEFT_MPI_ALIAS(Recv_c)

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend("MPI_Isend", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Isend)

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return isend("MPI_Isend_c", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Isend_c)

int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}
WEFT_MPI_ALIAS(Irecv)

int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}
WEFT_MPI_ALIAS(Irecv_c)

// A ready send is a standard send (the standard allows it).
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return send("MPI_Rsend", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Rsend)

int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  return send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Rsend_c)

int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return isend("MPI_Irsend", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Irsend)

int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return isend("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Irsend_c)

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                  recvtype, source, recvtag, comm, status);
}
WEFT_MPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                  recvtype, source, recvtag, comm, status);
}
WEFT_MPI_ALIAS(Sendrecv_c)

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return mpi_call("MPI_Probe", comm, [&] {
    weft::mpi::require_initialized("MPI_Probe");
    MPI_ABI_Comm& c = comm_of(comm);
    int core_tag_value = core_tag(tag, true);
    if (source == MPI_PROC_NULL) {
      weft::mpi::set_proc_null_status(status);
      return;
    }
    weft::ProbeResult found =
        weft::probe(weft::GroupRank{core_rank(c, source, true, "source")}, core_tag_value, c.group);
    weft::mpi::set_status(status, weft::mpi::comm_source(c, found.group_source), found.tag,
                          found.bytes);
  });
}
WEFT_MPI_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return mpi_call("MPI_Iprobe", comm, [&] {
    weft::mpi::require_initialized("MPI_Iprobe");
    MPI_ABI_Comm& c = comm_of(comm);
    int core_tag_value = core_tag(tag, true);
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      weft::mpi::set_proc_null_status(status);
      return;
    }
    std::optional<weft::ProbeResult> found = weft::iprobe(
        weft::GroupRank{core_rank(c, source, true, "source")}, core_tag_value, c.group);
    *flag = found ? 1 : 0;
    if (found) {
      weft::mpi::set_status(status, weft::mpi::comm_source(c, found->group_source), found->tag,
                            found->bytes);
    }
  });
}
WEFT_MPI_ALIAS(Iprobe)

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return mpi_call("MPI_Get_count", MPI_COMM_WORLD, [&] {
    uint64_t bytes = weft::mpi::status_bytes(*status);
    if (weft::mpi::is_derived(datatype)) {
      uint64_t n = weft::mpi::element_count(bytes, datatype);
      *count = n > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(n);
      return;
    }
    const weft::mpi::TypeInfo& type = weft::mpi::type_info(datatype);
    // Elements travel at their extent (a pair type with its padding).
    if (type.extent == 0) {
      *count = 0;
    } else if (bytes % type.extent != 0 || bytes / type.extent > INT32_MAX) {
      *count = MPI_UNDEFINED;
    } else {
      *count = static_cast<int>(bytes / type.extent);
    }
  });
}
WEFT_MPI_ALIAS(Get_count)

}  // extern "C"

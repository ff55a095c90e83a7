// The send modes beyond the standard one. Synchronous sends go by the core's rendezvous
// protocol whatever their size, so they complete only once a receive has matched them.
// A ready send is a standard send (point_to_point.cc). A buffered send copies the
// message into space reserved from an attached buffer (attached_buffer.h), and
// completes at once. Each function and its large-count form share one body.
#include "mpi/src/send_modes.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/attached_buffer.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"

using weft::mpi::comm_of;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::Message;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// `*keep_alive` receives what the send needs until it completes (a packed copy).
weft::Request synchronous_send(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, const MPI_ABI_Comm& c, std::shared_ptr<void>* keep_alive) {
  Message message = Message::outgoing(buf, count, datatype, "send");
  int core_tag_value = core_tag(tag, false);
  if (dest == MPI_PROC_NULL) return weft::Request();
  weft::Request sent =
      weft::issend(message.tensor(), weft::GroupRank{core_rank(c, dest, false, "destination")},
                   core_tag_value, c.group);
  *keep_alive = message.keep_alive();
  return sent;
}

void buffered_send(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   const MPI_ABI_Comm& c) {
  Message message = Message::outgoing(buf, count, datatype, "send");
  int core_tag_value = core_tag(tag, false);
  if (dest == MPI_PROC_NULL) return;
  weft::mpi::buffered_send(message.tensor(), core_rank(c, dest, false, "destination"),
                           core_tag_value, c);
}

// A request that is already complete, as a buffered send's is.
MPI_Request completed_request(MPI_Comm comm) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->proc_null = true;  // completes empty, like a send to MPI_PROC_NULL
  return r;
}

int ssend(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    std::shared_ptr<void> keep_alive;
    weft::Request r = synchronous_send(buf, count, datatype, dest, tag, comm_of(comm), &keep_alive);
    if (r.valid()) r.wait();
  });
}

int issend(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
           int tag, MPI_Comm comm, MPI_Request* request) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    std::shared_ptr<void> keep_alive;
    weft::Request sent =
        synchronous_send(buf, count, datatype, dest, tag, comm_of(comm), &keep_alive);
    auto* r = new MPI_ABI_Request();
    r->more().keep_alive = keep_alive;
    r->comm = comm;
    r->proc_null = !sent.valid();
    r->request = sent;
    *request = r;
  });
}

int bsend(const char* function, const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
          int tag, MPI_Comm comm, MPI_Request* request) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    buffered_send(buf, count, datatype, dest, tag, comm_of(comm));
    if (request != nullptr) *request = completed_request(comm);
  });
}

int sendrecv_replace(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                     MPI_Status* status) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    MPI_ABI_Comm& c = comm_of(comm);
    Message outgoing = Message::outgoing(buf, count, datatype, "buffer");
    // The message arrives into a copy, so the buffer can go out meanwhile.
    std::vector<std::byte> incoming(outgoing.tensor().bytes());
    weft::Request received = weft::mpi::exchange(
        c, outgoing.tensor(), dest, sendtag,
        weft::Tensor(incoming.data(), incoming.size(), weft::DType::kUInt8), source, recvtag);
    if (!received.valid()) {
      weft::mpi::set_proc_null_status(status);
      return;
    }
    received.wait();
    weft::mpi::unpack_replacement(incoming.data(), received.bytes(), buf, count, datatype);
    weft::mpi::set_status(status, weft::mpi::comm_source(c, received.group_source()),
                          received.tag(), received.bytes());
  });
}

}  // namespace

namespace weft::mpi {

void buffered_send(const weft::Tensor& bytes, int peer, int core_tag, const MPI_ABI_Comm& comm) {
  buffer_for(comm).send(bytes, peer, core_tag, comm.group);
}

void unpack_replacement(const std::byte* received, uint64_t bytes, void* buf, MPI_Count count,
                        MPI_Datatype datatype) {
  if (is_derived(datatype)) {
    unpack(received, bytes, layout_of(buf, count, datatype, "buffer"));
  } else if (bytes > 0) {
    std::memcpy(buf, received, bytes);
  }
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return ssend("MPI_Ssend", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Ssend)

int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  return ssend("MPI_Ssend_c", buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Ssend_c)

int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return issend("MPI_Issend", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Issend)

int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return issend("MPI_Issend_c", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Issend_c)

int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm, nullptr);
}
WEFT_MPI_ALIAS(Bsend)

int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm) {
  return bsend("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, nullptr);
}
WEFT_MPI_ALIAS(Bsend_c)

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return bsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Ibsend)

int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return bsend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Ibsend_c)

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, status);
}
WEFT_MPI_ALIAS(Sendrecv_replace)

int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status* status) {
  return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, status);
}
WEFT_MPI_ALIAS(Sendrecv_replace_c)

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  // A predefined datatype's elements are its basic elements.
  if (!weft::mpi::is_derived(datatype)) return PMPI_Get_count(status, datatype, count);
  return mpi_call("MPI_Get_elements", MPI_COMM_WORLD, [&] {
    uint64_t n = weft::mpi::basic_element_count(weft::mpi::status_bytes(*status), datatype);
    *count = n > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  });
}
WEFT_MPI_ALIAS(Get_elements)

}  // extern "C"

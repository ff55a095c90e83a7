// The send modes beyond the standard one. Synchronous sends go by the core's rendezvous
// protocol whatever their size, so they complete only once a receive has matched them.
// A ready send is a standard send (the standard allows it). A buffered send copies the
// message into space reserved from the buffer the program attached, and completes at
// once; the space is reclaimed when the copy has left.
#include "mpi/src/send_modes.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
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

struct BufferedSend {
  std::vector<std::byte> copy;
  weft::Request request;
};

// The buffer of MPI_Buffer_attach, and the buffered sends still using it.
struct AttachedBuffer {
  void* address = nullptr;
  int size = 0;
  bool attached = false;
  uint64_t in_use = 0;
  std::vector<std::unique_ptr<BufferedSend>> sends;

  void reclaim() {
    std::erase_if(sends, [&](const std::unique_ptr<BufferedSend>& s) {
      if (!s->request.is_completed()) return false;
      in_use -= s->copy.size() + MPI_BSEND_OVERHEAD;
      return true;
    });
  }
};

AttachedBuffer& attached() {
  static AttachedBuffer* buffer = new AttachedBuffer();
  return *buffer;
}

// `*keep_alive` receives what the send needs until it completes (a packed copy).
weft::Request synchronous_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                               const MPI_ABI_Comm& c, std::shared_ptr<void>* keep_alive) {
  Message message = Message::outgoing(buf, count, datatype, "send");
  int core_tag_value = core_tag(tag, false);
  if (dest == MPI_PROC_NULL) return weft::Request();
  weft::Request sent = weft::issend(message.tensor(), core_rank(c, dest, false, "destination"),
                                    core_tag_value, c.group);
  *keep_alive = message.keep_alive();
  return sent;
}

void buffered_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   const MPI_ABI_Comm& c) {
  Message message = Message::outgoing(buf, count, datatype, "send");
  int core_tag_value = core_tag(tag, false);
  if (dest == MPI_PROC_NULL) return;
  weft::mpi::buffered_send(message.tensor(), core_rank(c, dest, false, "destination"),
                           core_tag_value, c.group);
}

// A request that is already complete, as a buffered send's is.
MPI_Request completed_request(MPI_Comm comm) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->proc_null = true;  // completes empty, like a send to MPI_PROC_NULL
  return r;
}

}  // namespace

namespace weft::mpi {

void buffered_send(const weft::Tensor& bytes, int peer, int core_tag, const weft::Group& group) {
  AttachedBuffer& buffer = attached();
  buffer.reclaim();
  uint64_t needed = bytes.bytes() + MPI_BSEND_OVERHEAD;
  uint64_t room = buffer.attached ? static_cast<uint64_t>(buffer.size) - buffer.in_use : 0;
  if (needed > room) {
    throw MpiError(MPI_ERR_BUFFER,
                   "a buffered send of " + std::to_string(bytes.bytes()) + " bytes needs " +
                       std::to_string(needed) +
                       " bytes of attached buffer (with MPI_BSEND_OVERHEAD), " +
                       (buffer.attached ? std::to_string(room) + " are free"
                                        : std::string("but no buffer is attached")));
  }
  auto send = std::make_unique<BufferedSend>();
  auto* data = static_cast<const std::byte*>(bytes.data());
  send->copy.assign(data, data + bytes.bytes());
  send->request =
      weft::isend(weft::Tensor(send->copy.data(), send->copy.size(), weft::DType::kUInt8), peer,
                  core_tag, group);
  buffer.in_use += needed;
  // MPI_Finalize waits for the detached requests, so no buffered message is lost.
  weft::mpi::library().detached.push_back(send->request);
  buffer.sends.push_back(std::move(send));
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return mpi_call("MPI_Ssend", comm, [&] {
    weft::mpi::require_initialized("MPI_Ssend");
    std::shared_ptr<void> keep_alive;
    weft::Request r = synchronous_send(buf, count, datatype, dest, tag, comm_of(comm), &keep_alive);
    if (r.valid()) r.wait();
  });
}
WEFT_MPI_ALIAS(Ssend)

int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return mpi_call("MPI_Issend", comm, [&] {
    weft::mpi::require_initialized("MPI_Issend");
    std::shared_ptr<void> keep_alive;
    weft::Request sent =
        synchronous_send(buf, count, datatype, dest, tag, comm_of(comm), &keep_alive);
    auto* r = new MPI_ABI_Request();
    r->keep_alive = keep_alive;
    r->comm = comm;
    r->proc_null = !sent.valid();
    r->request = sent;
    *request = r;
  });
}
WEFT_MPI_ALIAS(Issend)

int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}
WEFT_MPI_ALIAS(Rsend)

int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}
WEFT_MPI_ALIAS(Irsend)

int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return mpi_call("MPI_Bsend", comm, [&] {
    weft::mpi::require_initialized("MPI_Bsend");
    buffered_send(buf, count, datatype, dest, tag, comm_of(comm));
  });
}
WEFT_MPI_ALIAS(Bsend)

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return mpi_call("MPI_Ibsend", comm, [&] {
    weft::mpi::require_initialized("MPI_Ibsend");
    buffered_send(buf, count, datatype, dest, tag, comm_of(comm));
    *request = completed_request(comm);
  });
}
WEFT_MPI_ALIAS(Ibsend)

int PMPI_Buffer_attach(void* buffer, int size) {
  return mpi_call("MPI_Buffer_attach", MPI_COMM_WORLD, [&] {
    AttachedBuffer& b = attached();
    if (b.attached) throw MpiError(MPI_ERR_BUFFER, "a buffer is already attached");
    if (size < 0) throw MpiError(MPI_ERR_ARG, "size " + std::to_string(size) + " is negative");
    b.address = buffer;
    b.size = size;
    b.attached = true;
  });
}
WEFT_MPI_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return mpi_call("MPI_Buffer_detach", MPI_COMM_WORLD, [&] {
    AttachedBuffer& b = attached();
    if (!b.attached) throw MpiError(MPI_ERR_BUFFER, "no buffer is attached");
    // The standard: detaching waits until every message in the buffer has gone.
    for (auto& send : b.sends) send->request.wait();
    b.sends.clear();
    b.in_use = 0;
    *static_cast<void**>(buffer_addr) = b.address;
    *size = b.size;
    b.attached = false;
  });
}
WEFT_MPI_ALIAS(Buffer_detach)

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return mpi_call("MPI_Sendrecv_replace", comm, [&] {
    weft::mpi::require_initialized("MPI_Sendrecv_replace");
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
    if (weft::mpi::is_derived(datatype)) {
      weft::mpi::unpack(incoming.data(), received.bytes(), count, datatype, buf);
    } else if (received.bytes() > 0) {
      std::memcpy(buf, incoming.data(), received.bytes());
    }
    weft::mpi::set_status(status, weft::mpi::comm_source(c, received.source()), received.tag(),
                          received.bytes());
  });
}
WEFT_MPI_ALIAS(Sendrecv_replace)

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

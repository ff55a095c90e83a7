// MPI_Isendrecv and MPI_Isendrecv_replace: one request for a receive and a send, done
// once both are. The receive is posted first, as MPI_Sendrecv's is; the send goes with
// the request's further operations (MPI_ABI_Request::also), which completion waits for
// before the receive's last step. The replacing form receives into a copy and moves it
// into the buffer only then, once the buffer's own data has left.
#include <cstring>
#include <memory>
#include <utility>
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

namespace {

std::shared_ptr<void> both(std::shared_ptr<void> a, std::shared_ptr<void> b) {
  if (!a) return b;
  if (!b) return a;
  return std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(std::move(a),
                                                                                   std::move(b));
}

// Posts the receive of `in` into `r` (or marks `r` as MPI_PROC_NULL's), then the send of
// `out`.
void start_exchange(MPI_ABI_Request& r, const MPI_ABI_Comm& c, const weft::Tensor& out, int dest,
                    int sendtag, const weft::Tensor& in, int source, int recvtag) {
  int out_tag = core_tag(sendtag, false), in_tag = core_tag(recvtag, true);
  int out_peer = dest == MPI_PROC_NULL ? -1 : core_rank(c, dest, false, "destination");
  int in_peer = source == MPI_PROC_NULL ? -1 : core_rank(c, source, true, "source");
  r.is_receive = true;
  r.source_offset = c.remote_offset;  // an intercommunicator's status names a remote rank
  r.proc_null = source == MPI_PROC_NULL;
  if (!r.proc_null) r.request = weft::irecv(in, weft::GroupRank{in_peer}, in_tag, c.group);
  if (out_peer >= 0)
    r.more().also.push_back(weft::isend(out, weft::GroupRank{out_peer}, out_tag, c.group));
}

int isendrecv(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    weft::mpi::require_pointer(request, "request");
    MPI_ABI_Comm& c = comm_of(comm);
    Message out = Message::outgoing(sendbuf, sendcount, sendtype, "send");
    Message in = Message::incoming(recvbuf, recvcount, recvtype, "receive");
    auto r = std::make_unique<MPI_ABI_Request>();
    r->comm = comm;
    start_exchange(*r, c, out.tensor(), dest, sendtag, in.tensor(), source, recvtag);
    r->more().keep_alive = both(out.keep_alive(), in.keep_alive());
    if (in.keep_alive() && !r->proc_null) {
      r->more().finish = [in, received = r->request] { in.unpack(received.bytes()); };
    }
    *request = r.release();
  });
}

int isendrecv_replace(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                      MPI_Request* request) {
  return mpi_call(function, comm, [&] {
    weft::mpi::require_initialized(function);
    weft::mpi::require_pointer(request, "request");
    MPI_ABI_Comm& c = comm_of(comm);
    Message out = Message::outgoing(buf, count, datatype, "buffer");
    auto copy = std::make_shared<std::vector<std::byte>>(out.tensor().bytes());
    weft::Tensor in(copy->data(), copy->size(), weft::DType::kUInt8);
    // Taken now: the datatype may be freed before the request completes.
    std::optional<weft::mpi::BufferLayout> layout;
    if (weft::mpi::is_derived(datatype))
      layout = weft::mpi::layout_of(buf, count, datatype, "buffer");
    auto r = std::make_unique<MPI_ABI_Request>();
    r->comm = comm;
    start_exchange(*r, c, out.tensor(), dest, sendtag, in, source, recvtag);
    r->more().keep_alive = both(out.keep_alive(), copy);
    if (!r->proc_null) {
      r->more().finish = [copy, layout, buf, received = r->request] {
        if (layout) {
          weft::mpi::unpack(copy->data(), received.bytes(), *layout);
        } else if (received.bytes() > 0) {
          std::memcpy(buf, copy->data(), received.bytes());
        }
      };
    }
    *request = r.release();
  });
}

}  // namespace

extern "C" {

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                   recvtype, source, recvtag, comm, request);
}
WEFT_MPI_ALIAS(Isendrecv)

int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                   recvcount, recvtype, source, recvtag, comm, request);
}
WEFT_MPI_ALIAS(Isendrecv_c)

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                           recvtag, comm, request);
}
WEFT_MPI_ALIAS(Isendrecv_replace)

int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                           recvtag, comm, request);
}
WEFT_MPI_ALIAS(Isendrecv_replace_c)

}  // extern "C"

// Persistent requests: MPI_Send_init and friends check their arguments once and keep
// them; each MPI_Start posts the operation again. A request to or from MPI_PROC_NULL
// starts nothing and completes at once, as the standard asks.
#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::communicator;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

enum class Mode { kStandard, kSynchronous, kReceive };

MPI_Request make_persistent(void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                            MPI_Comm comm, Mode mode, const char* function) {
  const MPI_ABI_Comm& c = communicator(comm, function);
  bool receive = mode == Mode::kReceive;
  weft::Tensor bytes = weft::mpi::bytes_of(buf, count, datatype, receive ? "receive" : "send");
  int core_tag_value = core_tag(tag, receive);
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->is_receive = receive;
  if (peer == MPI_PROC_NULL) {
    r->proc_null = true;
    r->restart = [] { return weft::Request(); };
    return r;
  }
  int core_peer = core_rank(c, peer, receive, receive ? "source" : "destination");
  weft::Group group = c.group;
  r->restart = [=]() {
    switch (mode) {
      case Mode::kReceive:
        return weft::irecv(bytes, core_peer, core_tag_value, group);
      case Mode::kSynchronous:
        return weft::issend(bytes, core_peer, core_tag_value, group);
      case Mode::kStandard:
        break;
    }
    return weft::isend(bytes, core_peer, core_tag_value, group);
  };
  return r;
}

void start(MPI_Request request) {
  MPI_ABI_Request& r = weft::mpi::request_of(request);
  if (!r.restart) throw MpiError(MPI_ERR_REQUEST, "not a persistent request");
  if (r.active) throw MpiError(MPI_ERR_REQUEST, "the request is already active");
  r.request = r.restart();
  r.active = true;
}

}  // namespace

extern "C" {

int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Send_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kStandard, "MPI_Send_init");
  });
}
WEFT_MPI_ALIAS(Send_init)

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ssend_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kSynchronous, "MPI_Ssend_init");
  });
}
WEFT_MPI_ALIAS(Ssend_init)

int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  // A ready send is a standard send here (see send_modes.cc).
  return mpi_call("MPI_Rsend_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kStandard, "MPI_Rsend_init");
  });
}
WEFT_MPI_ALIAS(Rsend_init)

int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return mpi_call("MPI_Recv_init", comm, [&] {
    *request =
        make_persistent(buf, count, datatype, source, tag, comm, Mode::kReceive, "MPI_Recv_init");
  });
}
WEFT_MPI_ALIAS(Recv_init)

int PMPI_Start(MPI_Request* request) {
  MPI_Comm comm = MPI_COMM_WORLD;
  try {
    comm = weft::mpi::request_of(*request).comm;
  } catch (const MpiError&) {
  }
  return mpi_call("MPI_Start", comm, [&] { start(*request); });
}
WEFT_MPI_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request requests[]) {
  return mpi_call("MPI_Startall", MPI_COMM_WORLD, [&] {
    for (int i = 0; i < count; ++i) start(requests[i]);
  });
}
WEFT_MPI_ALIAS(Startall)

}  // extern "C"

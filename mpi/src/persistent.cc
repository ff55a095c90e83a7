// Persistent requests: MPI_Send_init and friends check their arguments once and keep
// them; each MPI_Start posts the operation again. A request to or from MPI_PROC_NULL
// starts nothing and completes at once, as the standard asks.
#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"
#include "mpi/src/send_modes.h"

using weft::mpi::communicator;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::Message;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

enum class Mode { kStandard, kSynchronous, kBuffered, kReceive };

MPI_Request make_persistent(void* buf, MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                            MPI_Comm comm, Mode mode, const char* function) {
  const MPI_ABI_Comm& c = communicator(comm, function);
  bool receive = mode == Mode::kReceive;
  // The buffer is checked now; a send packs its data afresh at each start, a receive
  // unpacks at each completion.
  Message message = receive ? Message::incoming(buf, count, datatype, "receive")
                            : Message::outgoing(buf, count, datatype, "send");
  int core_tag_value = core_tag(tag, receive);
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->is_receive = receive;
  r->source_offset = c.remote_offset;
  if (peer == MPI_PROC_NULL) {
    r->proc_null = true;
    r->more().restart = [](MPI_ABI_Request&) {};
    return r;
  }
  int core_peer = core_rank(c, peer, receive, receive ? "source" : "destination");
  // A buffered send is complete once its copy is made, as MPI_Ibsend's request is.
  if (mode == Mode::kBuffered) r->proc_null = true;
  weft::Group group = c.group;
  r->more().restart = [=](MPI_ABI_Request& started) {
    if (!receive) message.pack();
    switch (mode) {
      case Mode::kReceive:
        started.request =
            weft::irecv(message.tensor(), weft::GroupRank{core_peer}, core_tag_value, group);
        if (message.keep_alive()) {
          started.more().finish = [message, received = started.request] {
            message.unpack(received.bytes());
          };
        }
        return;
      case Mode::kSynchronous:
        started.request =
            weft::issend(message.tensor(), weft::GroupRank{core_peer}, core_tag_value, group);
        return;
      case Mode::kBuffered:
        // The buffer attached at each start: the communicator's, or the process's.
        weft::mpi::buffered_send(message.tensor(), core_peer, core_tag_value,
                                 weft::mpi::comm_of(comm));
        return;
      case Mode::kStandard:
        started.request =
            weft::isend(message.tensor(), weft::GroupRank{core_peer}, core_tag_value, group);
        return;
    }
  };
  return r;
}

void start(MPI_Request request) {
  MPI_ABI_Request& r = weft::mpi::request_of(request);
  if (!r.extras().restart) throw MpiError(MPI_ERR_REQUEST, "not a persistent request");
  if (r.active) throw MpiError(MPI_ERR_REQUEST, "the request is already active");
  r.extras().restart(r);
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

int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Send_init_c", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kStandard, "MPI_Send_init_c");
  });
}
WEFT_MPI_ALIAS(Send_init_c)

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ssend_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kSynchronous, "MPI_Ssend_init");
  });
}
WEFT_MPI_ALIAS(Ssend_init)

int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Ssend_init_c", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kSynchronous, "MPI_Ssend_init_c");
  });
}
WEFT_MPI_ALIAS(Ssend_init_c)

int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  // A ready send is a standard send here (see send_modes.cc).
  return mpi_call("MPI_Rsend_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kStandard, "MPI_Rsend_init");
  });
}
WEFT_MPI_ALIAS(Rsend_init)

int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Rsend_init_c", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kStandard, "MPI_Rsend_init_c");
  });
}
WEFT_MPI_ALIAS(Rsend_init_c)

int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Bsend_init", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kBuffered, "MPI_Bsend_init");
  });
}
WEFT_MPI_ALIAS(Bsend_init)

int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Bsend_init_c", comm, [&] {
    *request = make_persistent(const_cast<void*>(buf), count, datatype, dest, tag, comm,
                               Mode::kBuffered, "MPI_Bsend_init_c");
  });
}
WEFT_MPI_ALIAS(Bsend_init_c)

int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return mpi_call("MPI_Recv_init", comm, [&] {
    *request =
        make_persistent(buf, count, datatype, source, tag, comm, Mode::kReceive, "MPI_Recv_init");
  });
}
WEFT_MPI_ALIAS(Recv_init)

int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Recv_init_c", comm, [&] {
    *request =
        make_persistent(buf, count, datatype, source, tag, comm, Mode::kReceive, "MPI_Recv_init_c");
  });
}
WEFT_MPI_ALIAS(Recv_init_c)

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

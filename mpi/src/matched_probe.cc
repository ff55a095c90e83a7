// Matched probes: MPI_Mprobe and MPI_Improbe take the message they find out of matching
// (the core's improbe and mprobe), so that no other receive can take it, and hand it to
// the program as an MPI_Message that MPI_Mrecv or MPI_Imrecv alone receives.
#include <optional>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/matched_message.h"
#include "mpi/src/message.h"
#include "mpi/src/objects.h"
#include "mpi/src/requests.h"

using weft::mpi::comm_of;
using weft::mpi::core_rank;
using weft::mpi::core_tag;
using weft::mpi::Message;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

MPI_Message message_handle(const weft::MatchedMessage& found, MPI_Comm comm, MPI_Status* status) {
  weft::mpi::set_status(status, weft::mpi::comm_source(comm_of(comm), found.found().group_source),
                        found.found().tag, found.found().bytes);
  auto* m = new MPI_ABI_Message();
  m->message = found;
  m->comm = comm;
  return m;
}

// The communicator whose error handler applies to a receive of `message`.
MPI_Comm comm_of_message(const MPI_Message* message) {
  if (message == nullptr || *message == MPI_MESSAGE_NULL || *message == MPI_MESSAGE_NO_PROC) {
    return MPI_COMM_WORLD;
  }
  return (*message)->magic == MPI_ABI_Message::kMagic ? (*message)->comm : MPI_COMM_WORLD;
}

// MPI_Mrecv and MPI_Imrecv: starts receiving `*message` and sets it to MPI_MESSAGE_NULL.
// Returns a request that is already complete (empty) for MPI_MESSAGE_NO_PROC.
MPI_Request start_receive(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message) {
  weft::mpi::require_pointer(message, "message");
  if (*message == MPI_MESSAGE_NULL) {
    throw MpiError(MPI_ERR_REQUEST, "the message is MPI_MESSAGE_NULL");
  }
  Message in = Message::incoming(buf, count, datatype, "receive");
  auto* r = new MPI_ABI_Request();
  r->is_receive = true;
  if (*message == MPI_MESSAGE_NO_PROC) {
    r->comm = MPI_COMM_WORLD;
    r->proc_null = true;
    *message = MPI_MESSAGE_NULL;
    return r;
  }
  MPI_ABI_Message* m = *message;
  if (m->magic != MPI_ABI_Message::kMagic) {
    delete r;
    throw MpiError(MPI_ERR_REQUEST, "the message handle is not a matched message");
  }
  r->comm = m->comm;
  r->source_offset = comm_of(m->comm).remote_offset;  // an intercommunicator's remote rank
  try {
    r->request = weft::imrecv(in.tensor(), m->message, comm_of(m->comm).group);
  } catch (...) {
    delete r;
    throw;
  }
  if (in.keep_alive()) {
    r->more().keep_alive = in.keep_alive();
    r->more().finish = [in, received = r->request] { in.unpack(received.bytes()); };
  }
  m->magic = 0;
  delete m;
  *message = MPI_MESSAGE_NULL;
  return r;
}

int mrecv(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype,
          MPI_Message* message, MPI_Status* status) {
  return mpi_call(function, comm_of_message(message), [&] {
    weft::mpi::require_initialized(function);
    MPI_Request request = start_receive(buf, count, datatype, message);
    weft::mpi::complete(&request, status);
  });
}

int imrecv(const char* function, void* buf, MPI_Count count, MPI_Datatype datatype,
           MPI_Message* message, MPI_Request* request) {
  return mpi_call(function, comm_of_message(message), [&] {
    weft::mpi::require_initialized(function);
    weft::mpi::require_pointer(request, "request");
    *request = start_receive(buf, count, datatype, message);
  });
}

}  // namespace

extern "C" {

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return mpi_call("MPI_Mprobe", comm, [&] {
    weft::mpi::require_initialized("MPI_Mprobe");
    MPI_ABI_Comm& c = comm_of(comm);
    int core_tag_value = core_tag(tag, true);
    weft::mpi::require_pointer(message, "message");
    if (source == MPI_PROC_NULL) {
      *message = MPI_MESSAGE_NO_PROC;
      weft::mpi::set_proc_null_status(status);
      return;
    }
    weft::MatchedMessage found = weft::mprobe(weft::GroupRank{core_rank(c, source, true, "source")},
                                              core_tag_value, c.group);
    *message = message_handle(found, comm, status);
  });
}
WEFT_MPI_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
  return mpi_call("MPI_Improbe", comm, [&] {
    weft::mpi::require_initialized("MPI_Improbe");
    MPI_ABI_Comm& c = comm_of(comm);
    int core_tag_value = core_tag(tag, true);
    weft::mpi::require_pointer(flag, "flag");
    weft::mpi::require_pointer(message, "message");
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      *message = MPI_MESSAGE_NO_PROC;
      weft::mpi::set_proc_null_status(status);
      return;
    }
    std::optional<weft::MatchedMessage> found = weft::improbe(
        weft::GroupRank{core_rank(c, source, true, "source")}, core_tag_value, c.group);
    *flag = found ? 1 : 0;
    if (found) *message = message_handle(*found, comm, status);
  });
}
WEFT_MPI_ALIAS(Improbe)

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
  return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}
WEFT_MPI_ALIAS(Mrecv)

int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                 MPI_Status* status) {
  return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}
WEFT_MPI_ALIAS(Mrecv_c)

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
  return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}
WEFT_MPI_ALIAS(Imrecv)

int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                  MPI_Request* request) {
  return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}
WEFT_MPI_ALIAS(Imrecv_c)

}  // extern "C"

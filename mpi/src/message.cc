#include "mpi/src/message.h"

#include "mpi/src/arguments.h"

namespace weft::mpi {

Message Message::over(const void* buf, MPI_Count count, MPI_Datatype datatype, const char* what) {
  Message m;
  if (std::optional<weft::Tensor> bytes = BlockBuffer::in_place(buf, count, datatype, what)) {
    m.tensor_ = *bytes;
  } else {
    m.staged_ = BlockBuffer::single(buf, count, datatype, what);
    m.tensor_ = m.staged_->tensor();
  }
  return m;
}

Message Message::outgoing(const void* buf, MPI_Count count, MPI_Datatype datatype,
                          const char* what) {
  Message m = over(buf, count, datatype, what);
  m.pack();
  return m;
}

Message Message::incoming(void* buf, MPI_Count count, MPI_Datatype datatype, const char* what) {
  return over(buf, count, datatype, what);
}

weft::Request exchange(const MPI_ABI_Comm& comm, const weft::Tensor& out, int dest, int sendtag,
                       const weft::Tensor& in, int source, int recvtag) {
  int out_tag = core_tag(sendtag, false), in_tag = core_tag(recvtag, true);
  weft::Request received;
  if (source != MPI_PROC_NULL) {
    received = weft::irecv(in, weft::GroupRank{core_rank(comm, source, true, "source")}, in_tag,
                           comm.group);
  }
  if (dest != MPI_PROC_NULL) {
    weft::send(out, weft::GroupRank{core_rank(comm, dest, false, "destination")}, out_tag,
               comm.group);
  }
  return received;
}

}  // namespace weft::mpi

#include "mpi/src/message.h"

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"

namespace weft::mpi {

struct Message::Staged {
  BufferLayout layout;
  std::vector<std::byte> bytes;
};

Message Message::over(const void* buf, int count, MPI_Datatype datatype, const char* what,
                      bool sending) {
  Message m;
  if (!is_derived(datatype)) {
    m.tensor_ = bytes_of(buf, count, datatype, what);
    return m;
  }
  BufferLayout layout = layout_of(buf, count, datatype, what);
  if (layout.contiguous) {
    m.tensor_ = weft::Tensor(layout.start, layout.bytes, weft::DType::kUInt8);
    return m;
  }
  m.state_ = std::make_shared<Staged>(Staged{layout, std::vector<std::byte>(layout.bytes)});
  if (sending) pack(layout, m.state_->bytes.data());
  m.tensor_ = weft::Tensor(m.state_->bytes.data(), layout.bytes, weft::DType::kUInt8);
  return m;
}

Message Message::outgoing(const void* buf, int count, MPI_Datatype datatype, const char* what) {
  return over(buf, count, datatype, what, true);
}

Message Message::incoming(void* buf, int count, MPI_Datatype datatype, const char* what) {
  return over(buf, count, datatype, what, false);
}

void Message::unpack(uint64_t received) const {
  if (state_) weft::mpi::unpack(state_->bytes.data(), received, state_->layout);
}

weft::Request exchange(const MPI_ABI_Comm& comm, const weft::Tensor& out, int dest, int sendtag,
                       const weft::Tensor& in, int source, int recvtag) {
  int out_tag = core_tag(sendtag, false), in_tag = core_tag(recvtag, true);
  weft::Request received;
  if (source != MPI_PROC_NULL) {
    received = weft::irecv(in, core_rank(comm, source, true, "source"), in_tag, comm.group);
  }
  if (dest != MPI_PROC_NULL) {
    weft::send(out, core_rank(comm, dest, false, "destination"), out_tag, comm.group);
  }
  return received;
}

}  // namespace weft::mpi

// A point-to-point message's bytes, as the core moves them. When the elements lie in
// one contiguous range (every predefined datatype, and derived ones such as a
// contiguous run), this is the program's memory itself. Otherwise (a vector, a struct
// with gaps) it is a packed copy for a send, or a staging buffer for a receive, which
// unpack() spreads into the program's memory once the message has arrived.
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "mpi/src/block_buffer.h"
#include "mpi/src/objects.h"

namespace weft::mpi {

class Message {
 public:
  static Message outgoing(const void* buf, MPI_Count count, MPI_Datatype datatype,
                          const char* what);
  static Message incoming(void* buf, MPI_Count count, MPI_Datatype datatype, const char* what);

  const weft::Tensor& tensor() const { return tensor_; }
  // Packs the program's data again (a persistent send's each start); nothing unstaged.
  void pack() const {
    if (staged_) staged_->pack();
  }
  // Moves `received` bytes from the staging buffer into place; nothing when unstaged.
  void unpack(uint64_t received) const {
    if (staged_) staged_->unpack(0, received);
  }
  // What must live as long as the operation: the copy or the staging buffer (or null).
  std::shared_ptr<void> keep_alive() const { return staged_ ? staged_->keep_alive() : nullptr; }

 private:
  // Most messages are one byte range of the program's memory: they cost no allocation.
  static Message over(const void* buf, MPI_Count count, MPI_Datatype datatype, const char* what);
  weft::Tensor tensor_;
  std::optional<BlockBuffer> staged_;
};

// MPI_Sendrecv's core: posts the receive of `in` from `source` (unless MPI_PROC_NULL),
// then sends `out` to `dest` (unless MPI_PROC_NULL) and waits for it; returns the
// receive, not yet waited for (empty when `source` is MPI_PROC_NULL). Posting the receive
// first means two ranks exchanging never wait on each other.
weft::Request exchange(const MPI_ABI_Comm& comm, const weft::Tensor& out, int dest, int sendtag,
                       const weft::Tensor& in, int source, int recvtag);

}  // namespace weft::mpi

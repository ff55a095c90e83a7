// The buffers of buffered sends (MPI_Bsend and its relatives): the process's
// (MPI_Buffer_attach), a communicator's (MPI_Comm_attach_buffer) or a session's
// (MPI_Session_attach_buffer). A buffered send copies its message and sends the copy, so
// it returns at once; the copy counts against the attached size, with
// MPI_BSEND_OVERHEAD, until it has left. MPI_BUFFER_AUTOMATIC attaches no memory and
// sets no limit: the library allocates each copy as it needs.
#pragma once

#include <mpi.h>
#include <weft/weft.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "mpi/src/objects.h"

namespace weft::mpi {

class AttachedBuffer {
 public:
  // MPI_ERR_BUFFER when a buffer is attached already; MPI_ERR_ARG for a negative size
  // (ignored for MPI_BUFFER_AUTOMATIC).
  void attach(void* address, MPI_Count size);
  // Waits until every buffered send of the buffer has left, then detaches it and
  // returns its address and size (MPI_BUFFER_AUTOMATIC and 0 for an automatic one).
  // MPI_ERR_BUFFER when none is attached.
  struct Detached {
    void* address;
    MPI_Count size;
  };
  Detached detach();
  bool attached() const { return attached_; }

  // Copies `bytes` (already packed) and sends the copy to `peer` of `group` with the
  // core's tag. MPI_ERR_BUFFER, naming the sizes, when the buffer lacks the room (or
  // none is attached).
  void send(const weft::Tensor& bytes, int peer, int core_tag, const weft::Group& group);
  // Waits until every buffered send so far has left (MPI_Buffer_flush).
  void flush();
  // The buffered sends still on their way (what MPI_Buffer_iflush's request waits for).
  std::vector<weft::Request> pending();

 private:
  struct Copy {
    std::vector<std::byte> bytes;
    weft::Request request;
  };
  // Forgets the copies that have left, freeing their room.
  void reclaim();

  void* address_ = nullptr;
  MPI_Count size_ = 0;
  bool attached_ = false;
  bool automatic_ = false;
  uint64_t in_use_ = 0;
  std::vector<std::unique_ptr<Copy>> copies_;
};

// MPI_Buffer_attach's buffer.
AttachedBuffer& process_buffer();

// The buffer a buffered send on `comm` uses: the communicator's when one is attached,
// else its session's when that has one attached, otherwise the process's.
AttachedBuffer& buffer_for(const MPI_ABI_Comm& comm);

// The attach and detach functions' checks and answers, shared by the process's,
// communicators' and sessions' forms: `*buffer_addr` gets the address, `*size` the
// size (MPI_ERR_COUNT, for the int forms, when it does not fit an int).
void attach_buffer(AttachedBuffer& buffer, void* address, MPI_Count size);
void detach_buffer(AttachedBuffer& buffer, void* buffer_addr, MPI_Count* size);
void detach_buffer(AttachedBuffer& buffer, void* buffer_addr, int* size);

// A request that completes once every send `buffer` has on its way now has left.
MPI_Request flush_request(AttachedBuffer& buffer, MPI_Comm comm);

}  // namespace weft::mpi

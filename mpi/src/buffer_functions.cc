// Attaching, detaching and flushing the buffers of buffered sends: the process's
// (MPI_Buffer_*) and a communicator's (MPI_Comm_*_buffer). The buffers themselves are
// in attached_buffer.h.
#include <memory>

#include "mpi/src/arguments.h"
#include "mpi/src/attached_buffer.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::AttachedBuffer;
using weft::mpi::mpi_call;
using weft::mpi::process_buffer;

namespace {

// A communicator's buffer, made on first use.
AttachedBuffer& comm_buffer(MPI_Comm comm, const char* function) {
  MPI_ABI_Comm& c = weft::mpi::communicator(comm, function);
  if (!c.buffer) c.buffer = std::make_shared<AttachedBuffer>();
  return *c.buffer;
}

}  // namespace

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) {
  return mpi_call("MPI_Buffer_attach", MPI_COMM_WORLD,
                  [&] { weft::mpi::attach_buffer(process_buffer(), buffer, size); });
}
WEFT_MPI_ALIAS(Buffer_attach)

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return mpi_call("MPI_Buffer_attach_c", MPI_COMM_WORLD,
                  [&] { weft::mpi::attach_buffer(process_buffer(), buffer, size); });
}
WEFT_MPI_ALIAS(Buffer_attach_c)

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  return mpi_call("MPI_Buffer_detach", MPI_COMM_WORLD,
                  [&] { weft::mpi::detach_buffer(process_buffer(), buffer_addr, size); });
}
WEFT_MPI_ALIAS(Buffer_detach)

int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return mpi_call("MPI_Buffer_detach_c", MPI_COMM_WORLD,
                  [&] { weft::mpi::detach_buffer(process_buffer(), buffer_addr, size); });
}
WEFT_MPI_ALIAS(Buffer_detach_c)

int PMPI_Buffer_flush(void) {
  return mpi_call("MPI_Buffer_flush", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Buffer_flush");
    process_buffer().flush();
  });
}
WEFT_MPI_ALIAS(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request* request) {
  return mpi_call("MPI_Buffer_iflush", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Buffer_iflush");
    weft::mpi::require_pointer(request, "request");
    *request = weft::mpi::flush_request(process_buffer(), MPI_COMM_WORLD);
  });
}
WEFT_MPI_ALIAS(Buffer_iflush)

int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  return mpi_call("MPI_Comm_attach_buffer", comm, [&] {
    weft::mpi::attach_buffer(comm_buffer(comm, "MPI_Comm_attach_buffer"), buffer, size);
  });
}
WEFT_MPI_ALIAS(Comm_attach_buffer)

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  return mpi_call("MPI_Comm_attach_buffer_c", comm, [&] {
    weft::mpi::attach_buffer(comm_buffer(comm, "MPI_Comm_attach_buffer_c"), buffer, size);
  });
}
WEFT_MPI_ALIAS(Comm_attach_buffer_c)

int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  return mpi_call("MPI_Comm_detach_buffer", comm, [&] {
    weft::mpi::detach_buffer(comm_buffer(comm, "MPI_Comm_detach_buffer"), buffer_addr, size);
  });
}
WEFT_MPI_ALIAS(Comm_detach_buffer)

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  return mpi_call("MPI_Comm_detach_buffer_c", comm, [&] {
    weft::mpi::detach_buffer(comm_buffer(comm, "MPI_Comm_detach_buffer_c"), buffer_addr, size);
  });
}
WEFT_MPI_ALIAS(Comm_detach_buffer_c)

int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  return mpi_call("MPI_Comm_flush_buffer", comm,
                  [&] { comm_buffer(comm, "MPI_Comm_flush_buffer").flush(); });
}
WEFT_MPI_ALIAS(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  return mpi_call("MPI_Comm_iflush_buffer", comm, [&] {
    AttachedBuffer& buffer = comm_buffer(comm, "MPI_Comm_iflush_buffer");
    weft::mpi::require_pointer(request, "request");
    *request = weft::mpi::flush_request(buffer, comm);
  });
}
WEFT_MPI_ALIAS(Comm_iflush_buffer)

}  // extern "C"

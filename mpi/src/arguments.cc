#include "mpi/src/arguments.h"

#include <string>

#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"

namespace weft::mpi {

weft::Tensor bytes_of(const void* buf, int count, MPI_Datatype datatype, const char* what) {
  if (is_derived(datatype)) {
    BufferLayout layout = layout_of(buf, count, datatype, what);
    if (!layout.contiguous) {
      throw MpiError(MPI_ERR_TYPE, std::string(what) +
                                       " datatype is a non-contiguous derived datatype, which "
                                       "only point-to-point calls take so far");
    }
    return weft::Tensor(layout.start, layout.bytes, weft::DType::kUInt8);
  }
  const TypeInfo& type = type_info(datatype);
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT,
                   std::string(what) + " count " + std::to_string(count) + " is negative");
  }
  uint64_t bytes = static_cast<uint64_t>(count) * type.extent;
  if (buf == nullptr && bytes > 0) {
    throw MpiError(MPI_ERR_BUFFER,
                   std::string(what) + " buffer is NULL with count " + std::to_string(count));
  }
  return weft::Tensor(const_cast<void*>(buf), bytes, weft::DType::kUInt8);
}

int core_rank(const MPI_ABI_Comm& comm, int rank, bool any_allowed, const char* what) {
  if (any_allowed && rank == MPI_ANY_SOURCE) return weft::kAnySource;
  int size = comm.group.size();
  if (rank < 0 || rank >= size) {
    throw MpiError(MPI_ERR_RANK, std::string(what) + " " + std::to_string(rank) +
                                     " is outside [0, " + std::to_string(size) + ") of " +
                                     comm.name);
  }
  return rank;
}

int core_tag(int tag, bool any_allowed) {
  if (any_allowed && tag == MPI_ANY_TAG) return weft::kAnyTag;
  if (tag < 0) throw MpiError(MPI_ERR_TAG, "tag " + std::to_string(tag) + " is negative");
  return tag;
}

int checked_root(const MPI_ABI_Comm& comm, int root) {
  int size = comm.group.size();
  if (root < 0 || root >= size) {
    throw MpiError(MPI_ERR_ROOT, "root " + std::to_string(root) + " is outside [0, " +
                                     std::to_string(size) + ") of " + comm.name);
  }
  return root;
}

void set_status(MPI_Status* status, int source, int tag, uint64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->MPI_internal[0] = static_cast<int>(static_cast<uint32_t>(bytes));
  status->MPI_internal[1] = static_cast<int>(static_cast<uint32_t>(bytes >> 32));
  status->MPI_internal[2] = 0;
}

void set_empty_status(MPI_Status* status) { set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0); }

void set_proc_null_status(MPI_Status* status) { set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0); }

uint64_t status_bytes(const MPI_Status& status) {
  return static_cast<uint64_t>(static_cast<uint32_t>(status.MPI_internal[0])) |
         static_cast<uint64_t>(static_cast<uint32_t>(status.MPI_internal[1])) << 32;
}

}  // namespace weft::mpi

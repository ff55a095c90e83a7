#include "mpi/src/arguments.h"

#include <string>

#include "mpi/src/errors.h"

namespace weft::mpi {

void require_pointer(const void* pointer, const char* what) {
  if (pointer == nullptr) throw MpiError(MPI_ERR_ARG, std::string(what) + " is NULL");
}

int core_rank(const MPI_ABI_Comm& comm, int rank, bool any_allowed, const char* what) {
  if (any_allowed && rank == MPI_ANY_SOURCE) return weft::kAnySource;
  // An intercommunicator's ranks name its remote group, which starts at remote_offset
  // of the core's group; an intracommunicator's offset is 0.
  int size = comm.inter ? static_cast<int>(comm.remote_world_ranks.size()) : comm.group.size();
  if (rank < 0 || rank >= size) {
    throw MpiError(MPI_ERR_RANK, std::string(what) + " " + std::to_string(rank) +
                                     " is outside [0, " + std::to_string(size) + ") of " +
                                     (comm.inter ? "the remote group of " : "") + comm.name);
  }
  return rank + comm.remote_offset;
}

int comm_source(const MPI_ABI_Comm& comm, int core_source) {
  return core_source - comm.remote_offset;
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

void set_cancelled(MPI_Status* status) {
  if (status != MPI_STATUS_IGNORE) status->MPI_internal[2] = 1;
}

bool status_cancelled(const MPI_Status& status) { return status.MPI_internal[2] != 0; }

}  // namespace weft::mpi

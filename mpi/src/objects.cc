#include "mpi/src/objects.h"

#include "mpi/src/errors.h"

namespace weft::mpi {

void require_initialized(const char* function) {
  const LibraryState& lib = library();
  // An open session lets the program use communicators made from its groups.
  if ((!lib.initialized || lib.finalized) && lib.sessions == 0) {
    throw MpiError(MPI_ERR_OTHER, std::string(function) + " called " +
                                      (lib.finalized ? "after MPI_Finalize" : "before MPI_Init"));
  }
}

MPI_ABI_Comm& comm_of(MPI_Comm comm) {
  if (MPI_ABI_Comm* c = comm_or_null(comm)) return *c;
  throw MpiError(MPI_ERR_COMM, comm == MPI_COMM_NULL ? "the communicator is MPI_COMM_NULL"
                                                     : "not a valid communicator");
}

MPI_ABI_Comm& communicator(MPI_Comm comm, const char* function) {
  require_initialized(function);
  return comm_of(comm);
}

MPI_Comm make_comm(const weft::Group& group, const MPI_ABI_Comm& parent) {
  auto* comm = new MPI_ABI_Comm();
  comm->group = group;
  comm->errhandler = parent.errhandler;
  comm->session_buffer = parent.session_buffer;
  for (int r = 0; r < group.size(); ++r) comm->world_ranks.push_back(group.world_rank(r));
  comm->name = "a communicator of " + std::to_string(group.size()) + " rank(s)";
  return comm;
}

MPI_Comm handle_of(MPI_ABI_Comm* comm) {
  LibraryState& lib = library();
  if (comm == &lib.world) return MPI_COMM_WORLD;
  if (comm == &lib.self) return MPI_COMM_SELF;
  return comm;
}

MPI_Errhandler errhandler_for(MPI_Comm comm) {
  try {
    return comm_of(comm).errhandler;
  } catch (const MpiError&) {
    return library().world.errhandler;
  }
}

int world_rank_or_unknown() {
  const LibraryState& lib = library();
  return lib.runtime_started ? weft::get_rank() : -1;
}

void throw_invalid_request() { throw MpiError(MPI_ERR_REQUEST, "not a valid request"); }

void reap_completed_detached() {
  std::erase_if(library().detached, [](const weft::Request& r) { return r.is_completed(); });
}

}  // namespace weft::mpi

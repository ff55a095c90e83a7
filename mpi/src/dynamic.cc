// Dynamic processes, as far as weft has them: a weft job is started whole by weftrun,
// so no process has a parent, and MPI_Comm_disconnect is MPI_Comm_free after the
// communication on the communicator has ended. Spawning refuses; ports, MPI_Comm_join
// and the name service connect processes of one job (mpi/src/connections.h).
#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;

extern "C" {

int PMPI_Comm_get_parent(MPI_Comm* parent) {
  return mpi_call("MPI_Comm_get_parent", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Comm_get_parent");
    weft::mpi::require_pointer(parent, "parent");
    *parent = MPI_COMM_NULL;
  });
}
WEFT_MPI_ALIAS(Comm_get_parent)

int PMPI_Comm_disconnect(MPI_Comm* comm) {
  int rc = mpi_call("MPI_Comm_disconnect", comm == nullptr ? MPI_COMM_NULL : *comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_disconnect");
    weft::mpi::require_pointer(comm, "comm");
    const MPI_ABI_Comm& c = weft::mpi::comm_of(*comm);
    // Collective over every member (both groups of an intercommunicator): once all
    // have arrived, every message on the communicator has been sent, and a correct
    // program has posted the receives that match them.
    weft::barrier(c.inter ? c.collective_group : c.group);
  });
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Comm_free(comm);
}
WEFT_MPI_ALIAS(Comm_disconnect)

}  // extern "C"

// Finding the store under a PMI-1 process manager (mpiexec.hydra): rank 0 hosts it on a
// free port of all its addresses and puts where it can be reached into the job's
// key-value space; after a PMI barrier every rank reads it.
#pragma once

#include <memory>

#include "rendezvous/init_method.h"
#include "rendezvous/tcp_store_server.h"

namespace weft::rendezvous {

// Fills spec.store_host and spec.store_port; on rank 0 also starts `server`. The PMI
// connection stays open for the life of the process, so a job that re-initialises
// finds its next store the same way, and is finalized at exit.
void find_store_over_pmi(InitSpec& spec, std::unique_ptr<TcpStoreServer>& server);

}  // namespace weft::rendezvous

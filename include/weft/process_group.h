// Joining and leaving the job. Mirrors torch.distributed's init_process_group.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "weft/store.h"
#include "weft/timeout.h"

namespace weft {

// Joins the job and blocks until every rank has joined and this process is connected
// to all of them.
//
//   backend      "auto" picks the best transport per peer (shared memory on one host,
//                TCP otherwise, CUDA IPC for device tensors where built with CUDA);
//                "gloo", "mpi" and "nccl", the original's names, mean the same: weft
//                has none of those libraries underneath, its own transports serve every
//                name. "tcp" forces TCP. Case does not matter. With WEFT_DEBUG=INFO one
//                line says what was asked for and what was chosen.
//   init_method  "env://" (default): MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK from
//                the environment; "tcp://host:port": rank 0 hosts the rendezvous store
//                at host:port (rank and world_size must then be given, as arguments or
//                through RANK/WORLD_SIZE).
//                env:// needs MASTER_ADDR on every rank but rank 0, which hosts the
//                store on all of its addresses when MASTER_ADDR is unset.
//   world_size, rank  -1 means "from the environment".
//   group_name   namespaces the rendezvous keys, so jobs can share one store.
//   timeout      deadline of the rendezvous and the default of every later operation.
//
// Errors: InvalidArgument for bad arguments (a rank outside [0, world_size), a rank
// that another process already holds, an unknown backend or init method); a process
// whose arguments doom the job once it knows where the store is, or whose links cannot
// be set up, tells the others, which fail at once with an Error naming its rank and
// the cause (rank 0 hosts the store for that, until they have heard, at most 30 s).
// TimeoutError "x/y ranks joined; missing ranks: ..." when the job does not assemble in
// time; Error naming addr:port when the store cannot be bound or reached, saying so
// when the port is in use by another job or server.
void init_process_group(const std::string& backend = "auto",
                        const std::string& init_method = "env://", int world_size = -1,
                        int rank = -1, const std::string& group_name = "",
                        Timeout timeout = kDefaultTimeout);

// Joins the job through `store` (weft/store.h) instead of an init method: every rank
// passes a store where the job's keys are its own, its rank and the world size. How a
// framework with a store of its own (torch.distributed's TCPStore or FileStore) runs
// weft underneath it. `backend` and `timeout` and the errors are as above; the store's
// own failures propagate as weft::Error (a TimeoutError where the store timed out).
// weft keeps `store` until destroy_process_group.
void init_process_group(std::shared_ptr<Store> store, int world_size, int rank,
                        const std::string& backend = "auto", Timeout timeout = kDefaultTimeout);

// The job a launcher started this process in, as env:// reads it when RANK and
// WORLD_SIZE are unset: Open MPI's mpirun, MPICH's Hydra (PMI-1) or Slurm's srun. For a
// framework that runs its own rendezvous (torch.distributed's env://) and needs the same
// answers. The store's port is derived from the job's id unless MASTER_PORT or WEFT_PORT
// gives one, so every rank computes the same.
struct LaunchedJob {
  std::string launcher;  // "Open MPI", "PMI", "Slurm"
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // 0 under PMI, which does not give it
  // Where rank 0 runs: MASTER_ADDR when set, else the first node of Slurm's node list,
  // or 127.0.0.1 for Open MPI on one host. Empty under PMI: weft learns it from the
  // process manager, which only a member of the job can ask.
  std::string store_host;
  uint16_t store_port = 0;
};
// Nothing when no launcher is recognised; InvalidArgument naming the variable when one
// is present but malformed or incomplete.
std::optional<LaunchedJob> launched_job();

bool is_initialized();
int get_rank();        // rank in the world group
int get_world_size();  // size of the world group

// Aborts the job's communication, as ncclCommAbort does, so that a program can stop
// waiting for a failure it detected itself: callable from any thread at any time after
// init_process_group, also while other threads are blocked in weft calls. Every pending
// operation of this process fails with an Error (kState) saying weft::abort was called
// here, with `reason`; every peer is told, and its pending operations fail with a
// PeerError naming this rank. Every later operation fails at once, on every rank. Each
// process then calls destroy_process_group, and may join a new job. A second call, or a
// call after a peer's abort, does nothing. The world is aborted as a whole: there is no
// group form.
void abort(const std::string& reason = "");

// Leaves the job: finishes sending what is queued, tells every peer this rank is
// leaving, and closes all links. Pending requests fail with an Error saying so. No
// other thread may be inside a weft call meanwhile.
void destroy_process_group();

}  // namespace weft

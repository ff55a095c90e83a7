// Recognising the launcher that started this process when env:// finds none of its own
// variables (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK), so that `mpirun -n 4 prog`,
// `mpiexec.hydra -n 4 prog` and `srun -n 4 prog` work with no weft-specific set-up:
//
//   Open MPI  OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE. On one host the
//             store is on 127.0.0.1; across hosts MASTER_ADDR must name rank 0's host.
//   PMI-1     PMI_RANK, PMI_SIZE and PMI_FD (MPICH's Hydra): rank 0 hosts the store on a
//             free port and publishes where through the process manager's key-value
//             space.
//   Slurm     SLURM_PROCID, SLURM_STEP_NUM_TASKS (or SLURM_NTASKS), SLURM_LOCALID and
//             SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST): the store is on the first node.
//
// Unless WEFT_PORT (or MASTER_PORT) is set, the store's port is derived from the job's
// id (Open MPI's job id, Slurm's job and step ids), so every rank computes the same one
// and concurrent jobs on one host differ.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace weft::rendezvous {

struct LaunchedBy {
  std::string launcher;  // "Open MPI", "PMI", "Slurm"
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string store_host;  // empty for PMI: learned from the process manager
  uint16_t store_port = 0;
  bool pmi = false;
};

// The launcher this process's environment shows, if any. InvalidArgument naming the
// variable when one is present but malformed or incomplete.
std::optional<LaunchedBy> detect_launcher();

// The port a job with this id uses when none is given: in [10000, 30000), below Linux's
// ephemeral range, so that it is not taken by some outgoing connection.
uint16_t port_for_job(uint64_t job_id);

}  // namespace weft::rendezvous

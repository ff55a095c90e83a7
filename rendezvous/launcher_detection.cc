#include "rendezvous/launcher_detection.h"

#include "base/env.h"
#include "base/socket.h"
#include "rendezvous/hostlist.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

const std::string kOp = "init_process_group(env://)";

// The integer in `name`, which must be set when `required`; -1 when absent.
int env_int(const char* name, bool required, const std::string& launcher) {
  auto text = base::env::get(name);
  if (!text) {
    if (!required) return -1;
    throw InvalidArgument(kOp + ": started by " + launcher + " (as the environment shows), but " +
                          name + " is not set");
  }
  return static_cast<int>(base::env::get_int(name, -1, 0, 1 << 30));
}

// WEFT_PORT, else MASTER_PORT, else the port derived from the job's id.
uint16_t store_port(uint64_t job_id) {
  for (const char* name : {"WEFT_PORT", "MASTER_PORT"}) {
    if (auto text = base::env::get(name)) return base::parse_port(*text, name);
  }
  return port_for_job(job_id);
}

// A job or step id (absent: 0); base::env::get_int names the variable when it is not a number.
uint64_t env_id(const char* name) {
  return static_cast<uint64_t>(base::env::get_int(name, 0, 0, INT64_MAX));
}

void check_rank(const LaunchedBy& l, const char* rank_var) {
  if (l.world_size < 1 || l.rank < 0 || l.rank >= l.world_size) {
    throw InvalidArgument(kOp + ": " + l.launcher + " gave rank " + std::to_string(l.rank) + " (" +
                          rank_var + ") of world size " + std::to_string(l.world_size) +
                          ", which is not a rank of that world");
  }
}

std::optional<LaunchedBy> open_mpi() {
  if (!base::env::get("OMPI_COMM_WORLD_RANK")) return std::nullopt;
  LaunchedBy l;
  l.launcher = "Open MPI";
  l.rank = env_int("OMPI_COMM_WORLD_RANK", true, l.launcher);
  l.world_size = env_int("OMPI_COMM_WORLD_SIZE", true, l.launcher);
  l.local_rank = std::max(0, env_int("OMPI_COMM_WORLD_LOCAL_RANK", false, l.launcher));
  check_rank(l, "OMPI_COMM_WORLD_RANK");
  int local_size = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", false, l.launcher);
  if (auto addr = base::env::get("MASTER_ADDR")) {
    l.store_host = *addr;
  } else if (local_size == l.world_size) {
    l.store_host = "127.0.0.1";  // every rank on this host
  } else {
    throw InvalidArgument(kOp +
                          ": started by Open MPI across several hosts; set MASTER_ADDR "
                          "to an address of rank 0's host (mpirun -x MASTER_ADDR=...)");
  }
  l.store_port = store_port(env_id("OMPI_MCA_ess_base_jobid"));
  return l;
}

std::optional<LaunchedBy> pmi() {
  if (!base::env::get("PMI_RANK") || !base::env::get("PMI_FD")) return std::nullopt;
  LaunchedBy l;
  l.launcher = "PMI";
  l.rank = env_int("PMI_RANK", true, l.launcher);
  l.world_size = env_int("PMI_SIZE", true, l.launcher);
  // Hydra's count of ranks on this host is MPI_LOCALNRANKS; the local rank is not given.
  l.local_rank = 0;
  check_rank(l, "PMI_RANK");
  l.pmi = true;
  return l;
}

std::optional<LaunchedBy> slurm() {
  if (!base::env::get("SLURM_PROCID")) return std::nullopt;
  LaunchedBy l;
  l.launcher = "Slurm";
  l.rank = env_int("SLURM_PROCID", true, l.launcher);
  const char* size_var =
      base::env::get("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
  l.world_size = env_int(size_var, true, l.launcher);
  l.local_rank = std::max(0, env_int("SLURM_LOCALID", false, l.launcher));
  check_rank(l, "SLURM_PROCID");
  const char* nodes_var =
      base::env::get("SLURM_STEP_NODELIST") ? "SLURM_STEP_NODELIST" : "SLURM_JOB_NODELIST";
  auto nodes = base::env::get(nodes_var);
  if (auto addr = base::env::get("MASTER_ADDR")) {
    l.store_host = *addr;
  } else if (nodes) {
    l.store_host = first_host(*nodes, nodes_var);
  } else {
    throw InvalidArgument(kOp +
                          ": started by Slurm, but neither SLURM_STEP_NODELIST nor "
                          "SLURM_JOB_NODELIST is set to say where rank 0 runs");
  }
  // Steps of one job run one after another or side by side: both ids go in.
  l.store_port = store_port(env_id("SLURM_JOB_ID") * 64 + env_id("SLURM_STEP_ID"));
  return l;
}

}  // namespace

uint16_t port_for_job(uint64_t job_id) {
  // A multiplicative hash first: consecutive job ids should not take neighbouring ports
  // that a job of the previous id might still hold.
  return static_cast<uint16_t>(10000 + (job_id * 0x9E3779B97F4A7C15ull >> 32) % 20000);
}

std::optional<LaunchedBy> detect_launcher() {
  // Open MPI first: under mpirun a PMI variable may come from a wrapper's environment.
  if (auto l = open_mpi()) return l;
  if (auto l = pmi()) return l;
  return slurm();
}

}  // namespace weft::rendezvous

// Which transports a process may use: the backend argument of init_process_group and
// WEFT_TRANSPORTS (a comma-separated list of tcp and shm) both restrict the choice.
#pragma once

#include <string>

namespace weft::runtime {

struct TransportChoice {
  bool tcp = true;      // peers on other hosts, and local ones shared memory cannot reach
  bool shm = true;      // peers that share memory with this process
  std::string setting;  // what chose them, for errors ("WEFT_TRANSPORTS=shm")
};

// `backend`, in any case: "auto" (the best transport per peer); "gloo", "mpi" and "nccl",
// the names torch.distributed's programs pass, mean the same (weft has none of those
// libraries underneath); "tcp" forces TCP. Logs one INFO line saying what was asked for
// and what was chosen. InvalidArgument for an unknown backend, an unknown name in
// WEFT_TRANSPORTS, or an empty selection.
TransportChoice select_transports(const std::string& backend);

}  // namespace weft::runtime

// Which transports a process may use: the backend argument of init_process_group and
// WEFT_TRANSPORTS (a comma-separated list of tcp, shm and ib) both restrict the choice.
// ib names the verbs transport, which this build does not have yet: it only finds the
// devices (transport/ib/devices.h).
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
// and what was chosen, and with WEFT_TRANSPORTS unset one more, once per process, saying
// what verbs devices there are. InvalidArgument for an unknown backend, an unknown name
// in WEFT_TRANSPORTS, an empty selection, ib alone (with the reason: no usable device,
// or no verbs transport in this build), or a malformed WEFT_IB_HCA or WEFT_IB_GID_INDEX.
// ib beside other transports leaves them to serve, with a line saying what was found.
TransportChoice select_transports(const std::string& backend);

}  // namespace weft::runtime

// Which transports a process may use: the backend argument of init_process_group and
// WEFT_TRANSPORTS (a comma-separated list of tcp, shm and ib) both restrict the choice.
// ib is the verbs transport (InfiniBand and RoCE, transport/ib/): by default peers on
// other hosts use it where both ends have a port on a common fabric; named in
// WEFT_TRANSPORTS, every peer it can reach uses it, on this host too unless shared
// memory serves them (runtime/init/ib_peers.h decides per pair).
#pragma once

#include <string>

namespace weft::runtime {

struct TransportChoice {
  bool tcp = true;        // peers on other hosts, and local ones shared memory cannot reach
  bool shm = true;        // peers that share memory with this process
  bool ib = true;         // verbs, for peers on other hosts ...
  bool ib_asked = false;  // ... or, named in WEFT_TRANSPORTS, for every peer it reaches
  std::string setting;    // what chose them, for errors ("WEFT_TRANSPORTS=shm")
};

// `backend`, in any case: "auto" (the best transport per peer); "gloo", "mpi" and "nccl",
// the names torch.distributed's programs pass, mean the same (weft has none of those
// libraries underneath); "tcp" forces TCP (and rules verbs out). Logs one INFO line
// saying what was asked for and what was chosen, and with WEFT_TRANSPORTS unset one
// more, once per process, saying what verbs devices there are. InvalidArgument for an
// unknown backend, an unknown name in WEFT_TRANSPORTS, an empty selection, ib alone
// where no verbs port is usable (with the probe's reason), or a malformed WEFT_IB_HCA
// or WEFT_IB_GID_INDEX. ib beside other transports, with no usable port, leaves them to
// serve, with a line saying why.
TransportChoice select_transports(const std::string& backend);

}  // namespace weft::runtime

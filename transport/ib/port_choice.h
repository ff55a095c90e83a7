// Which usable port a rank opens when the host has several. First those attached to the
// NUMA node the rank runs on, since traffic to a NIC on another node crosses the
// inter-socket link both ways; a device whose node is unknown (-1) counts as near every
// rank, as does every device for a rank bound within no single node. Then, among the
// ports equally near, the one at the rank's index among the ranks of its host modulo
// their number, so that a host's ranks spread over its NICs, one rail each, as NCCL's
// rail-optimised layout does. WEFT_IB_HCA has already narrowed the usable ports (the
// probe marks the others unusable). Pure: the report and the rank's place are all it
// reads, so tests drive it with made-up devices and nodes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "transport/ib/devices.h"

namespace weft::transport::ib {

struct RankPlace {
  int numa_node = -1;   // the node the rank is bound within; -1: none, or unknown
  int local_index = 0;  // its index among the ranks of its host
};

struct PortRef {
  size_t device = 0;  // in VerbsReport::devices
  size_t port = 0;    // in that device's ports
};

struct PortChoice {
  // Every usable port, in the order to try them: the chosen one first, then the other
  // near ones in rail order, then the rest, so that a port that fails to open is not
  // the end of verbs for the rank. Empty when the report has no usable port.
  std::vector<PortRef> order;
  // Why the first: "2 of 3 usable ports are on this rank's NUMA node 1; local rank 3
  // takes rail 3 mod 2 = 1 of them".
  std::string why;
};

PortChoice choose_port(const VerbsReport& report, const RankPlace& rank);

// "mlx5_0:1 (NUMA node 1)"; "(NUMA node unknown)" where it is.
std::string port_label(const VerbsReport& report, PortRef ref);

}  // namespace weft::transport::ib

#include "transport/ib/port_choice.h"

#include <algorithm>

namespace weft::transport::ib {

PortChoice choose_port(const VerbsReport& report, const RankPlace& rank) {
  std::vector<PortRef> usable, near, far;
  bool unknown_near = false;  // some near port is near only because its node is unknown
  for (size_t d = 0; d < report.devices.size(); ++d) {
    const int node = report.devices[d].numa_node;
    for (size_t p = 0; p < report.devices[d].ports.size(); ++p) {
      if (!report.devices[d].ports[p].usable()) continue;
      usable.push_back({d, p});
      if (rank.numa_node < 0 || node < 0 || node == rank.numa_node) {
        near.push_back({d, p});
        unknown_near = unknown_near || (rank.numa_node >= 0 && node < 0);
      } else {
        far.push_back({d, p});
      }
    }
  }
  PortChoice choice;
  if (usable.empty()) return choice;
  if (usable.size() == 1) {
    choice.order = usable;
    choice.why = "the only usable port";
    return choice;
  }
  const std::string all = std::to_string(usable.size());
  const std::string node = "NUMA node " + std::to_string(rank.numa_node);
  if (rank.numa_node < 0) {
    choice.why = "this rank is on no single NUMA node, so all " + all + " usable ports are near";
  } else if (near.empty()) {
    // None is near: all are equally far, and the ranks still spread over them.
    std::swap(near, far);
    choice.why = "none of the " + all + " usable ports is on this rank's " + node;
  } else {
    choice.why = std::to_string(near.size()) + " of " + all + " usable ports " +
                 (near.size() == 1 ? "is" : "are") + " on this rank's " + node +
                 (unknown_near ? " or on no known node" : "");
  }
  const size_t rail = static_cast<size_t>(std::max(rank.local_index, 0)) % near.size();
  if (near.size() > 1) {
    const std::string index = std::to_string(rank.local_index);
    choice.why += "; local rank " + index + " takes rail " + index + " mod " +
                  std::to_string(near.size()) + " = " + std::to_string(rail) + " of them";
  }
  std::rotate(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(rail), near.end());
  choice.order = near;
  choice.order.insert(choice.order.end(), far.begin(), far.end());
  return choice;
}

std::string port_label(const VerbsReport& report, PortRef ref) {
  const DeviceReport& d = report.devices[ref.device];
  return d.name + ":" + std::to_string(d.ports[ref.port].port) + " (NUMA node " +
         (d.numa_node >= 0 ? std::to_string(d.numa_node) : std::string("unknown")) + ")";
}

}  // namespace weft::transport::ib

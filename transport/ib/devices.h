// What verbs devices this host has, as weft would use them: each device's NUMA node and
// ports with their state, link layer, LID and GIDs, which ports WEFT_IB_HCA selects and
// which GID weft would address each by, or why there are none. weft-info shows the
// report, and init reads it when some peer may use verbs (port_choice.h takes a port
// from it). Probing opens each device and closes it again; nothing stays open.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transport/ib/gid_choice.h"
#include "transport/ib/hca_filter.h"
#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

struct ProbeOptions {
  HcaFilter hca;                 // default: every device and port
  std::optional<int> gid_index;  // WEFT_IB_GID_INDEX; default: chosen per port
  // WEFT_IB_HCA and WEFT_IB_GID_INDEX; InvalidArgument naming the variable when one
  // does not parse.
  static ProbeOptions from_env();
};

struct PortReport {
  int port = 0;
  std::string state;       // "ACTIVE", "DOWN", ...; "?" when the port could not be queried
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  uint16_t lid = 0;
  int gid_table = 0;  // entries in the port's GID table
  GidChoice gid;
  std::string why_not;  // empty when weft could use the port
  bool usable() const { return why_not.empty(); }
};

struct DeviceReport {
  std::string name;
  // The NUMA node the device is attached to, and so every port of it; -1 when unknown,
  // which counts as near every rank (port_choice.h).
  int numa_node = -1;
  std::string error;  // why its ports were not listed: left out by WEFT_IB_HCA, or
                      // "ibv_open_device failed: ..."
  std::vector<PortReport> ports;
};

struct VerbsReport {
  std::vector<DeviceReport> devices;
  std::string why_none;  // empty when some port is usable
  bool usable() const { return why_none.empty(); }
  // The usable ports in one line ("mlx5_0 port 1 (Ethernet, GID 3: RoCE v2,
  // IPv4-mapped, NUMA node 1)", the node only where known), or why there are none.
  std::string summary() const;
};

// Probes through verbs_api(). Never throws for what it finds: a library that does not
// load, no devices and devices that fail all end up in the report.
VerbsReport probe_verbs_devices(const ProbeOptions& options = {});
VerbsReport probe_verbs_devices(const VerbsApi& api, const ProbeOptions& options);

}  // namespace weft::transport::ib

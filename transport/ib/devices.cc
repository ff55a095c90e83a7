#include "transport/ib/devices.h"

#include <cerrno>
#include <cstring>

namespace weft::transport::ib {
namespace {

std::string state_name(ibv_port_state state) {
  switch (state) {
    case IBV_PORT_NOP:
      return "NOP";
    case IBV_PORT_DOWN:
      return "DOWN";
    case IBV_PORT_INIT:
      return "INIT";
    case IBV_PORT_ARMED:
      return "ARMED";
    case IBV_PORT_ACTIVE:
      return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER:
      return "ACTIVE_DEFER";
  }
  return "state " + std::to_string(static_cast<int>(state));
}

// Drivers that predate RoCE leave the link layer unspecified; they are InfiniBand.
std::string link_layer_name(uint8_t link_layer) {
  return link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
}

std::string left_out(const HcaFilter& filter) {
  return (filter.excluding() ? "excluded by " : "not selected by ") + filter.setting();
}

PortReport probe_port(const VerbsApi& api, ibv_context* context, const std::string& device,
                      int number, const ProbeOptions& options) {
  PortReport port;
  port.port = number;
  ibv_port_attr attr{};
  const int rc = api.query_port(context, static_cast<uint8_t>(number), &attr);
  if (rc != 0) {
    port.state = "?";
    port.why_not = std::string("ibv_query_port failed: ") + std::strerror(rc);
    return port;
  }
  port.state = state_name(attr.state);
  port.link_layer = link_layer_name(attr.link_layer);
  port.lid = attr.lid;
  port.gid_table = attr.gid_tbl_len;
  port.gid = choose_gid(api, context, static_cast<uint8_t>(number), attr, options.gid_index);
  if (!options.hca.selects(device, number)) {
    port.why_not = left_out(options.hca);
  } else if (attr.state != IBV_PORT_ACTIVE) {
    port.why_not = "the port is " + port.state;
  } else if (attr.link_layer != IBV_LINK_LAYER_ETHERNET && attr.lid == 0) {
    port.why_not = "no LID (is a subnet manager running?)";
  } else if (port.gid.index < 0) {
    port.why_not = port.gid.why_not;
  }
  return port;
}

DeviceReport probe_device(const VerbsApi& api, ibv_device* device, const ProbeOptions& options) {
  DeviceReport report;
  const char* name = api.get_device_name(device);
  report.name = name ? name : "?";
  if (api.device_numa_node != nullptr) report.numa_node = api.device_numa_node(device);
  if (!options.hca.may_select(report.name)) {
    report.error = left_out(options.hca);
    return report;
  }
  errno = 0;
  ibv_context* context = api.open_device(device);
  if (context == nullptr) {
    report.error = std::string("ibv_open_device failed: ") +
                   (errno ? std::strerror(errno) : "no reason given");
    return report;
  }
  ibv_device_attr attr{};
  if (const int rc = api.query_device(context, &attr); rc != 0) {
    report.error = std::string("ibv_query_device failed: ") + std::strerror(rc);
  } else {
    for (int p = 1; p <= attr.phys_port_cnt; ++p) {
      report.ports.push_back(probe_port(api, context, report.name, p, options));
    }
    if (report.ports.empty()) report.error = "no ports";
  }
  api.close_device(context);
  return report;
}

// Why no port of any device is usable: each device's or port's reason.
std::string why_unusable(const std::vector<DeviceReport>& devices) {
  std::string why;
  auto add = [&why](const std::string& what, const std::string& reason) {
    why += (why.empty() ? "" : "; ") + what + ": " + reason;
  };
  for (const DeviceReport& d : devices) {
    if (!d.error.empty()) add("device " + d.name, d.error);
    for (const PortReport& p : d.ports) add(d.name + " port " + std::to_string(p.port), p.why_not);
  }
  return "no usable RDMA port (" + why + ")";
}

}  // namespace

ProbeOptions ProbeOptions::from_env() {
  ProbeOptions options;
  options.hca = HcaFilter::from_env();
  options.gid_index = gid_index_from_env();
  return options;
}

std::string VerbsReport::summary() const {
  if (!usable()) return why_none;
  std::string line;
  for (const DeviceReport& d : devices) {
    for (const PortReport& p : d.ports) {
      if (!p.usable()) continue;
      line += (line.empty() ? "" : ", ") + d.name + " port " + std::to_string(p.port) + " (" +
              p.link_layer + (p.link_layer == "Ethernet" ? "" : ", LID " + std::to_string(p.lid)) +
              ", GID " + std::to_string(p.gid.index) + ": " + p.gid.how +
              (d.numa_node >= 0 ? ", NUMA node " + std::to_string(d.numa_node) : "") + ")";
    }
  }
  return line;
}

VerbsReport probe_verbs_devices(const ProbeOptions& options) {
  std::string why_not;
  const VerbsApi* api = verbs_api(&why_not);
  if (api == nullptr) {
    VerbsReport report;
    report.why_none = why_not;
    return report;
  }
  return probe_verbs_devices(*api, options);
}

VerbsReport probe_verbs_devices(const VerbsApi& api, const ProbeOptions& options) {
  VerbsReport report;
  int count = 0;
  errno = 0;
  ibv_device** list = api.get_device_list(&count);
  if (list == nullptr) {
    const int error = errno;
    report.why_none = std::string("no RDMA devices (ibv_get_device_list failed: ") +
                      (error ? std::strerror(error) : "no reason given") +
                      (error == ENOSYS ? "; the kernel has no RDMA support" : "") + ")";
    return report;
  }
  for (int i = 0; i < count; ++i) report.devices.push_back(probe_device(api, list[i], options));
  api.free_device_list(list);
  if (count == 0) {
    report.why_none = "no RDMA devices (ibv_get_device_list returned 0 devices)";
    return report;
  }
  for (const DeviceReport& d : report.devices) {
    for (const PortReport& p : d.ports) {
      if (p.usable()) return report;
    }
  }
  report.why_none = why_unusable(report.devices);
  return report;
}

}  // namespace weft::transport::ib

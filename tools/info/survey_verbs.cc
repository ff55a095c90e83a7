#include <string>

#include "base/numa_node.h"
#include "tools/info/survey.h"
#include "transport/ib/devices.h"
#include "transport/ib/port_choice.h"
#include "weft/error.h"

namespace weft::info {

namespace {

using transport::ib::DeviceReport;
using transport::ib::PortReport;

InfoNode describe_port(const PortReport& p) {
  InfoNode port;
  port.add("port", p.port);
  port.add("state", p.state);
  if (!p.link_layer.empty()) {
    port.add("link layer", p.link_layer);
    port.add("lid", static_cast<int>(p.lid));
    port.add("gid table entries", p.gid_table);
    port.add("gids", p.gid.populated);
  }
  if (p.gid.index >= 0) {
    port.add("gid index", p.gid.index);
    port.add("gid chosen by", p.gid.how);
  }
  port.add("usable", p.usable());
  if (!p.usable()) port.add("why not", p.why_not);
  return port;
}

InfoNode describe_device(const DeviceReport& d) {
  InfoNode device;
  device.add("name", d.name);
  device.add("numa node", d.numa_node >= 0 ? InfoNode(d.numa_node) : InfoNode("unknown"));
  if (!d.error.empty()) device.add("error", d.error);
  InfoNode ports = InfoNode::list();
  for (const PortReport& p : d.ports) ports.push(describe_port(p));
  device.add("ports", std::move(ports));
  return device;
}

}  // namespace

InfoNode survey_verbs() {
  InfoNode verbs;
  // What a job's administrator has and which port weft would take.
  verbs.add("weft transport",
            "ib: peers on other hosts use it where both ends have a usable port on a common "
            "fabric (WEFT_TRANSPORTS=ib: every peer shared memory does not serve)");
  std::string why_not;
  const bool loaded = transport::ib::verbs_api(&why_not) != nullptr;
  verbs.add("library",
            loaded ? std::string(transport::ib::kLibibverbs) + ", loaded at run time" : why_not);
  transport::ib::ProbeOptions options;
  try {
    options = transport::ib::ProbeOptions::from_env();
  } catch (const Error& e) {
    verbs.add("devices", InfoNode::list());
    verbs.add("why none", e.what());
    return verbs;
  }
  if (!options.hca.setting().empty()) verbs.add("selection", options.hca.setting());
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(options);
  InfoNode devices = InfoNode::list();
  for (const DeviceReport& d : report.devices) devices.push(describe_device(d));
  verbs.add("devices", std::move(devices));
  if (report.usable()) {
    verbs.add("usable", report.summary());
    // What a job's first rank on this host would take, bound as this process is (the
    // others take the rails after it: runtime/init/ib_peers.cc).
    const base::NumaPlacement numa = base::calling_thread_numa_placement();
    const transport::ib::PortChoice choice = transport::ib::choose_port(report, {numa.node, 0});
    verbs.add("this process", numa.how);
    verbs.add("port of local rank 0",
              transport::ib::port_label(report, choice.order.front()) + ", since " + choice.why);
  } else {
    verbs.add("why none", report.why_none);
  }
  return verbs;
}

}  // namespace weft::info

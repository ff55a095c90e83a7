#include <hwloc.h>

#include <memory>
#include <string>

#include "tools/info/survey.h"

namespace weft::info {

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string bitmap_list(hwloc_const_bitmap_t bitmap) {
  if (bitmap == nullptr) return "";
  char* text = nullptr;
  hwloc_bitmap_list_asprintf(&text, bitmap);
  std::string out = text ? text : "";
  free(text);
  return out;
}

// The NUMA nodes nearest an I/O device: those of its first ancestor with a CPU set.
InfoNode numa_nodes_of(hwloc_obj_t device) {
  hwloc_obj_t parent = hwloc_get_non_io_ancestor_obj(nullptr, device);
  InfoNode nodes = InfoNode::list();
  if (parent == nullptr || parent->nodeset == nullptr) return nodes;
  unsigned node = 0;
  hwloc_bitmap_foreach_begin(node, parent->nodeset) nodes.push(static_cast<int64_t>(node));
  hwloc_bitmap_foreach_end();
  return nodes;
}

std::string pci_address(hwloc_obj_t device) {
  for (hwloc_obj_t o = device; o != nullptr; o = o->parent) {
    if (o->type == HWLOC_OBJ_PCI_DEVICE) {
      char text[32];
      snprintf(text, sizeof text, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain,
               o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
      return text;
    }
  }
  return "";
}

InfoNode describe_os_device(hwloc_obj_t device) {
  InfoNode entry;
  entry.add("name", device->name ? device->name : "?");
  if (const char* model = hwloc_obj_get_info_by_name(device, "GPUModel")) {
    entry.add("model", model);
  } else if (device->subtype != nullptr) {
    entry.add("kind", device->subtype);
  }
  if (std::string pci = pci_address(device); !pci.empty()) entry.add("pci", pci);
  entry.add("numa nodes", numa_nodes_of(device));
  return entry;
}

}  // namespace

InfoNode survey_topology() {
  InfoNode topology;
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    topology.add("error", "hwloc_topology_init failed");
    return topology;
  }
  Topology owned(raw);
  // Keep the I/O devices that matter (GPUs, NICs, their PCI bridges), which hwloc drops
  // by default.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(raw) != 0) {
    topology.add("error", "hwloc could not read the topology");
    return topology;
  }
  topology.add("hwloc", HWLOC_VERSION);
  topology.add("packages", hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE));
  topology.add("cores", hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE));
  topology.add("hardware threads", hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU));

  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(raw, allowed, HWLOC_CPUBIND_PROCESS) == 0) {
    topology.add("cpus this process may use", bitmap_list(allowed));
  }
  hwloc_bitmap_free(allowed);

  InfoNode numa = InfoNode::list();
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, nullptr);
       node != nullptr; node = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, node)) {
    InfoNode entry;
    entry.add("node", static_cast<int64_t>(node->os_index));
    entry.add("cpus", bitmap_list(node->cpuset));
    entry.add("memory bytes", static_cast<uint64_t>(node->attr->numanode.local_memory));
    numa.push(std::move(entry));
  }
  topology.add("numa nodes", std::move(numa));

  InfoNode gpus = InfoNode::list();
  InfoNode nics = InfoNode::list();
  for (hwloc_obj_t device = hwloc_get_next_osdev(raw, nullptr); device != nullptr;
       device = hwloc_get_next_osdev(raw, device)) {
    switch (device->attr->osdev.type) {
      case HWLOC_OBJ_OSDEV_GPU:
      case HWLOC_OBJ_OSDEV_COPROC:
        gpus.push(describe_os_device(device));
        break;
      case HWLOC_OBJ_OSDEV_NETWORK:
      case HWLOC_OBJ_OSDEV_OPENFABRICS:
        nics.push(describe_os_device(device));
        break;
      default:
        break;
    }
  }
  topology.add("gpus (hwloc)", std::move(gpus));
  topology.add("network devices (hwloc)", std::move(nics));
  return topology;
}

}  // namespace weft::info

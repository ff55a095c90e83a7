#include "tools/weftrun/cpu_binding.h"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "weft/error.h"

namespace weft::weftrun {
namespace {

[[noreturn]] void throw_hwloc_failure(const char* call) {
  throw Error(ErrorCode::kInternal, std::string("weftrun: cannot read this machine's topology: ") +
                                        call + " failed: " + std::strerror(errno));
}

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

Topology load_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw_hwloc_failure("hwloc_topology_init");
  Topology topology(raw);
  if (hwloc_topology_load(topology.get()) != 0) throw_hwloc_failure("hwloc_topology_load");
  return topology;
}

// The cpus this process may run on. hwloc 2.x already leaves the PUs outside our cgroup
// cpuset out of the topology (and out of hwloc_topology_get_allowed_cpuset), but not the
// ones outside our affinity mask (taskset, numactl, a batch system's binding): that is a
// binding, not a restriction. HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING (hwloc >= 2.1)
// would cover it, but it takes the mask of the whole process, which on Linux is the union
// over all its threads; this thread's mask from sched_getaffinity is what the kernel checks
// a rank's binding against and what a spawned child would otherwise inherit, so intersect
// with that.
Bitmap allowed_cpus(hwloc_topology_t topology) {
  Bitmap allowed(hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topology)));
  Bitmap affinity(hwloc_bitmap_alloc());
  if (!allowed || !affinity) throw_hwloc_failure("hwloc_bitmap_alloc");
  for (int cpu : calling_thread_cpus())
    hwloc_bitmap_set(affinity.get(), static_cast<unsigned>(cpu));
  hwloc_bitmap_and(allowed.get(), allowed.get(), affinity.get());
  return allowed;
}

std::vector<int> cpus_of(hwloc_const_bitmap_t set) {
  std::vector<int> cpus;
  for (int cpu = hwloc_bitmap_first(set); cpu >= 0; cpu = hwloc_bitmap_next(set, cpu)) {
    cpus.push_back(cpu);
  }
  return cpus;
}

std::string describe(const std::string& what, int index, const std::vector<int>& cpus) {
  return what + " " + std::to_string(index) + " (cpus " + format_cpu_list(cpus) + ")";
}

}  // namespace

std::optional<BindTo> parse_bind_to(std::string_view text) {
  if (text == "core") return BindTo::kCore;
  if (text == "numa") return BindTo::kNuma;
  if (text == "none") return BindTo::kNone;
  return std::nullopt;
}

MachineLayout read_machine_layout() {
  Topology topology = load_topology();
  Bitmap allowed = allowed_cpus(topology.get());
  if (hwloc_bitmap_iszero(allowed.get())) {
    throw Error(ErrorCode::kInternal,
                "weftrun: hwloc knows none of the cpus this process may run on (cpus " +
                    format_cpu_list(calling_thread_cpus()) + ")");
  }

  MachineLayout layout;
  // PUs in hwloc's logical order, grouped by their core. A PU without a core ancestor
  // (some platforms do not report cores) is a core of its own.
  std::map<unsigned, size_t> core_slot;  // core's logical index -> index in layout.cores
  int pus = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_PU);
  for (int i = 0; i < pus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_PU, static_cast<unsigned>(i));
    if (pu == nullptr || !hwloc_bitmap_isset(allowed.get(), pu->os_index)) continue;
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology.get(), HWLOC_OBJ_CORE, pu);
    if (core == nullptr) {
      layout.cores.push_back({static_cast<int>(pu->os_index)});
      continue;
    }
    auto [slot, added] = core_slot.try_emplace(core->logical_index, layout.cores.size());
    if (added) layout.cores.emplace_back();
    layout.cores[slot->second].push_back(static_cast<int>(pu->os_index));
  }
  for (std::vector<int>& cpus : layout.cores) std::sort(cpus.begin(), cpus.end());

  // hwloc gives a NUMA node the cpuset of the object it hangs from, so memory-only nodes
  // (CXL, HBM beside DRAM) share cpus with the ordinary node of their package. Each cpu
  // goes to the first node (in logical order) that holds it; nodes left empty are dropped.
  Bitmap taken(hwloc_bitmap_alloc());
  Bitmap cpus(hwloc_bitmap_alloc());
  if (!taken || !cpus) throw_hwloc_failure("hwloc_bitmap_alloc");
  int nodes = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nodes; ++i) {
    hwloc_obj_t node =
        hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node == nullptr || node->cpuset == nullptr) continue;
    hwloc_bitmap_and(cpus.get(), node->cpuset, allowed.get());
    hwloc_bitmap_andnot(cpus.get(), cpus.get(), taken.get());
    if (hwloc_bitmap_iszero(cpus.get())) continue;
    hwloc_bitmap_or(taken.get(), taken.get(), cpus.get());
    layout.numa_nodes.push_back(cpus_of(cpus.get()));
  }
  if (layout.numa_nodes.empty()) layout.numa_nodes.push_back(cpus_of(allowed.get()));
  return layout;
}

BindingPlan plan_binding(BindTo how, int local_ranks, const MachineLayout& layout) {
  if (local_ranks < 0) {
    throw InvalidArgument("plan_binding: " + std::to_string(local_ranks) + " local ranks");
  }
  BindingPlan plan;
  if (how == BindTo::kNone) return plan;
  if (layout.cores.empty()) {
    throw InvalidArgument("plan_binding: the machine layout has no cores to bind ranks to");
  }
  auto ranks = static_cast<size_t>(local_ranks);

  if (how == BindTo::kCore) {
    size_t cores = layout.cores.size();
    for (size_t rank = 0; rank < ranks; ++rank) {
      size_t core = rank % cores;
      plan.ranks.push_back(
          {layout.cores[core], describe("core", static_cast<int>(core), layout.cores[core])});
    }
    if (ranks > cores) {
      plan.warning = std::to_string(ranks) + " ranks share " + std::to_string(cores) +
                     " core(s), so some cores hold more than one rank";
    }
    return plan;
  }

  // A layout that names no NUMA node is one node holding every core, as on a machine
  // where hwloc reports none.
  std::vector<std::vector<int>> nodes = layout.numa_nodes;
  if (nodes.empty()) {
    std::set<int> all;
    for (const std::vector<int>& core : layout.cores) all.insert(core.begin(), core.end());
    nodes.emplace_back(all.begin(), all.end());
  }
  for (size_t rank = 0; rank < ranks; ++rank) {
    size_t node = rank * nodes.size() / ranks;
    plan.ranks.push_back({nodes[node], describe("NUMA node", static_cast<int>(node), nodes[node])});
  }
  return plan;
}

void bind_calling_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) throw InvalidArgument("weftrun: cannot bind to an empty set of cpus");
  int highest = *std::max_element(cpus.begin(), cpus.end());
  if (*std::min_element(cpus.begin(), cpus.end()) < 0) {
    throw InvalidArgument("weftrun: cannot bind to cpus " + format_cpu_list(cpus) +
                          ": negative cpu number");
  }
  int count = std::max(highest + 1, CPU_SETSIZE);
  std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(count),
                                                       [](cpu_set_t* s) { CPU_FREE(s); });
  if (!set) throw Error(ErrorCode::kInternal, "weftrun: CPU_ALLOC failed");
  size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set.get());
  for (int cpu : cpus) CPU_SET_S(static_cast<size_t>(cpu), size, set.get());
  if (sched_setaffinity(0, size, set.get()) != 0) {
    throw Error(ErrorCode::kInternal, "weftrun: cannot bind to cpus " + format_cpu_list(cpus) +
                                          ": sched_setaffinity: " + std::strerror(errno));
  }
}

std::vector<int> calling_thread_cpus() {
  // The kernel refuses (EINVAL) a mask smaller than its own; grow until it fits.
  for (int count = CPU_SETSIZE;; count *= 2) {
    std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(count),
                                                         [](cpu_set_t* s) { CPU_FREE(s); });
    if (!set) throw Error(ErrorCode::kInternal, "weftrun: CPU_ALLOC failed");
    size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set.get());
    if (sched_getaffinity(0, size, set.get()) == 0) {
      std::vector<int> cpus;
      for (int cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(static_cast<size_t>(cpu), size, set.get())) cpus.push_back(cpu);
      }
      return cpus;
    }
    if (errno != EINVAL || count >= (1 << 20)) {
      throw Error(ErrorCode::kInternal,
                  std::string("weftrun: sched_getaffinity: ") + std::strerror(errno));
    }
  }
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string text;
  for (size_t i = 0; i < sorted.size();) {
    size_t end = i;
    while (end + 1 < sorted.size() && sorted[end + 1] == sorted[end] + 1) ++end;
    if (!text.empty()) text += ",";
    text += std::to_string(sorted[i]);
    if (end > i) text += "-" + std::to_string(sorted[end]);
    i = end + 1;
  }
  return text;
}

}  // namespace weft::weftrun

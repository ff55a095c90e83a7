// CPU binding of the ranks weftrun starts on one host (--bind-to core|numa|none).
// Reading the machine (hwloc) and planning who goes where are separate, so that the
// plan is a pure function that unit tests drive with made-up machines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::weftrun {

enum class BindTo { kNone, kCore, kNuma };

// "core", "numa" or "none"; anything else is nullopt, for the caller to word the usage error.
std::optional<BindTo> parse_bind_to(std::string_view text);

// The OS cpu numbers (PU os_index, what sched_setaffinity takes) of each core and each
// NUMA node, restricted to the cpus this process may run on: under taskset or a cgroup
// cpuset the ranks must stay inside that set. Cores and nodes with no such cpu are left
// out, so an index here is not necessarily the hardware's core or node number.
struct MachineLayout {
  std::vector<std::vector<int>> cores;
  std::vector<std::vector<int>> numa_nodes;  // each allowed cpu is in exactly one
};

// Throws weft::Error if hwloc cannot read the topology.
MachineLayout read_machine_layout();

struct CpuBinding {
  std::vector<int> cpus;
  std::string description;  // for the log: "core 1 (cpus 1)", "NUMA node 0 (cpus 0-3,8-11)"
};

struct BindingPlan {
  std::vector<CpuBinding> ranks;  // by local rank; empty for BindTo::kNone
  std::string warning;            // non-empty when ranks must share cores
};

// kCore: local rank i gets core i % cores, with a warning when there are more ranks than
// cores. kNuma: rank i gets node i * nodes / local_ranks, so neighbouring ranks (which
// talk most in rings) share a node. Pure; throws weft::InvalidArgument for a layout with
// no cores or a negative rank count.
BindingPlan plan_binding(BindTo how, int local_ranks, const MachineLayout& layout);

// posix_spawn children inherit the calling thread's mask, so the launcher binds itself
// around each spawn: save calling_thread_cpus(), bind, spawn, bind back. Throws
// weft::Error naming the cpus if the kernel refuses.
void bind_calling_thread(const std::vector<int>& cpus);
std::vector<int> calling_thread_cpus();  // sorted

// Sorted, compact ranges: {0, 1, 2, 5, 7, 8} -> "0-2,5,7-8"; {} -> "".
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace weft::weftrun

// Which NUMA node the calling thread runs on, for taking the devices attached to it (the
// verbs port, runtime/init/ib_peers.cc). Read from sysfs, where hwloc reads it too, so
// that libweft needs no hwloc of its own: the thread's CPU affinity, and
// /sys/devices/system/node/node<N>/cpulist for the CPUs of each node.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::base {

struct NumaPlacement {
  // -1 when the thread is not bound within one node (its CPUs span several, so where it
  // runs is the scheduler's choice from one moment to the next) or when the machine
  // says nothing about its nodes.
  int node = -1;
  std::string how;  // "cpus 0-3, on NUMA node 0", "cpus 0-15 span NUMA nodes 0-1", ...
};

// Pure: where a thread allowed on `cpus` runs, given the cpus of each node.
NumaPlacement numa_placement(const std::vector<int>& cpus,
                             const std::map<int, std::vector<int>>& node_cpus);

// The calling thread's, from its affinity and sysfs.
NumaPlacement calling_thread_numa_placement();

// A kernel cpu list, "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}; nullopt when malformed.
// An empty or all-blank text is the empty list.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// The reverse, compact: {0, 1, 2, 5} -> "0-2,5".
std::string format_cpu_list(const std::vector<int>& sorted_cpus);

}  // namespace weft::base

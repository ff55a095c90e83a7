#include "base/numa_node.h"

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace weft::base {
namespace {

constexpr char kNodes[] = "/sys/devices/system/node";

// The calling thread's affinity, sorted; empty when the kernel will not say.
std::vector<int> calling_thread_cpus() {
  // The kernel refuses (EINVAL) a mask smaller than its own; grow until it fits.
  for (int count = CPU_SETSIZE; count <= (1 << 20); count *= 2) {
    std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(count),
                                                         [](cpu_set_t* s) { CPU_FREE(s); });
    if (!set) return {};
    const size_t size = CPU_ALLOC_SIZE(count);
    if (sched_getaffinity(0, size, set.get()) != 0) {
      if (errno == EINVAL) continue;
      return {};
    }
    std::vector<int> cpus;
    for (int cpu = 0; cpu < count; ++cpu) {
      if (CPU_ISSET_S(static_cast<size_t>(cpu), size, set.get())) cpus.push_back(cpu);
    }
    return cpus;
  }
  return {};
}

// Each node's cpus as sysfs lists them; empty on a machine (or container) without it.
std::map<int, std::vector<int>> node_cpus() {
  std::map<int, std::vector<int>> nodes;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(kNodes), closedir);
  if (!dir) return nodes;
  while (const dirent* entry = readdir(dir.get())) {
    const std::string name = entry->d_name;
    if (name.size() <= 4 || name.compare(0, 4, "node") != 0 ||
        !std::all_of(name.begin() + 4, name.end(),
                     [](unsigned char c) { return std::isdigit(c); })) {
      continue;
    }
    std::ifstream in(std::string(kNodes) + "/" + name + "/cpulist");
    std::string text;
    if (!std::getline(in, text)) continue;
    if (auto cpus = parse_cpu_list(text)) nodes[std::stoi(name.substr(4))] = std::move(*cpus);
  }
  return nodes;
}

std::string node_list(const std::set<int>& nodes) {
  return format_cpu_list(std::vector<int>(nodes.begin(), nodes.end()));
}

}  // namespace

NumaPlacement numa_placement(const std::vector<int>& cpus,
                             const std::map<int, std::vector<int>>& node_cpus) {
  NumaPlacement p;
  if (cpus.empty()) {
    p.how = "its CPU affinity is unknown";
    return p;
  }
  const std::string allowed = "cpus " + format_cpu_list(cpus);
  if (node_cpus.empty()) {
    p.how = allowed + ", on a machine that lists no NUMA nodes";
    return p;
  }
  std::set<int> nodes;
  for (int cpu : cpus) {
    for (const auto& [node, members] : node_cpus) {
      if (std::binary_search(members.begin(), members.end(), cpu)) nodes.insert(node);
    }
  }
  if (nodes.size() == 1) {
    p.node = *nodes.begin();
    p.how = allowed + ", on NUMA node " + std::to_string(p.node);
  } else if (nodes.empty()) {
    p.how = allowed + ", in no NUMA node the machine lists";
  } else {
    p.how = allowed + " span NUMA nodes " + node_list(nodes);
  }
  return p;
}

NumaPlacement calling_thread_numa_placement() {
  return numa_placement(calling_thread_cpus(), node_cpus());
}

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  std::vector<int> cpus;
  if (text.empty()) return cpus;
  std::stringstream in{std::string(text)};
  std::string range;
  while (std::getline(in, range, ',')) {
    const size_t dash = range.find('-');
    const std::string first = range.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : range.substr(dash + 1);
    auto number = [](const std::string& digits) -> std::optional<int> {
      if (digits.empty() || digits.size() > 7 ||
          !std::all_of(digits.begin(), digits.end(),
                       [](unsigned char c) { return std::isdigit(c); })) {
        return std::nullopt;
      }
      return std::stoi(digits);
    };
    const auto from = number(first), to = number(last);
    if (!from || !to || *to < *from) return std::nullopt;
    for (int cpu = *from; cpu <= *to; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& sorted_cpus) {
  std::string text;
  for (size_t i = 0; i < sorted_cpus.size();) {
    size_t j = i;
    while (j + 1 < sorted_cpus.size() && sorted_cpus[j + 1] == sorted_cpus[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(sorted_cpus[i]);
    if (j > i) text += "-" + std::to_string(sorted_cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace weft::base

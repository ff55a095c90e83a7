#include "tools/weftrun/job_layout.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace weft::weftrun {
namespace {

std::string describe_slots(const std::vector<HostSlots>& hosts) {
  std::string out;
  int total = 0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    total += hosts[i].slots;
    if (i < 8) out += (i == 0 ? "" : ", ") + hosts[i].host + ":" + std::to_string(hosts[i].slots);
  }
  if (hosts.size() > 8) out += ", ...";
  return std::to_string(total) + " slot(s) (" + out + ")";
}

JobLayout layout_on_hosts(const Options& options, const std::vector<HostSlots>& hosts) {
  if (options.nnodes != 0 && options.nnodes != static_cast<int>(hosts.size())) {
    throw UsageError("--nnodes " + std::to_string(options.nnodes) + " but " +
                     std::to_string(hosts.size()) + " host(s) are named");
  }
  long long slots = 0;
  for (const auto& host : hosts) slots += host.slots;
  JobLayout layout;
  layout.world_size = options.num_ranks != 0 ? options.num_ranks : static_cast<int>(slots);
  if (layout.world_size > slots) {
    throw UsageError("-n " + std::to_string(layout.world_size) + ": the hosts have only " +
                     describe_slots(hosts));
  }
  if (layout.world_size > kMaxRanks) {
    throw UsageError("the hosts' " + describe_slots(hosts) + " are more than " +
                     std::to_string(kMaxRanks) + " ranks; give -n");
  }
  int left = layout.world_size;
  for (const auto& host : hosts) {
    if (left == 0) break;
    int here = std::min(left, host.slots);
    layout.ranks_per_node.push_back(here);
    layout.hosts.push_back(host.host);
    left -= here;
  }
  return layout;
}

}  // namespace

int JobLayout::first_rank(int node) const {
  int first = 0;
  for (int k = 0; k < node; ++k) first += ranks_per_node[static_cast<size_t>(k)];
  return first;
}

std::vector<HostSlots> parse_hostfile(const std::string& name, const std::string& text) {
  std::vector<HostSlots> hosts;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string where = name + ":" + std::to_string(number);
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    std::vector<HostSlots> entry = parse_host_list(where, host);
    if (entry.size() != 1) throw UsageError(where + ": one host per line");
    std::string word;
    while (words >> word) {
      if (word.rfind("slots=", 0) == 0) {
        // The same as "host:N", and checked the same way.
        const std::string& name = entry[0].host;
        std::string bracketed = name.find(':') == std::string::npos ? name : "[" + name + "]";
        entry[0].slots = parse_host_list(where, bracketed + ":" + word.substr(6)).front().slots;
      } else if (word.rfind("max_slots=", 0) == 0) {
        // Open MPI's cap on oversubscription; weftrun never places more than `slots`.
      } else {
        throw UsageError(where + ": '" + word + "' is not understood (expected slots=N)");
      }
    }
    hosts.push_back(entry[0]);
  }
  if (hosts.empty()) throw UsageError("--hostfile " + name + ": names no host");
  return hosts;
}

std::vector<HostSlots> hosts_of(const Options& options) {
  if (options.hostfile.empty()) return options.hosts;
  std::ifstream file(options.hostfile);
  if (!file) {
    throw UsageError("--hostfile " + options.hostfile + ": " + std::strerror(errno));
  }
  std::stringstream text;
  text << file.rdbuf();
  return parse_hostfile(options.hostfile, text.str());
}

JobLayout layout_job(const Options& options, const std::vector<HostSlots>& hosts) {
  if (!hosts.empty()) return layout_on_hosts(options, hosts);
  int nnodes = std::max(options.nnodes, 1);
  int per_node = options.nproc_per_node;
  JobLayout layout;
  if (per_node == 0) {
    if (options.num_ranks % nnodes != 0) {
      throw UsageError("-n " + std::to_string(options.num_ranks) +
                       " ranks do not divide over --nnodes " + std::to_string(nnodes) +
                       "; give --nproc-per-node");
    }
    per_node = options.num_ranks / nnodes;
  }
  long long world = static_cast<long long>(per_node) * nnodes;
  if (options.num_ranks != 0 && options.num_ranks != world) {
    throw UsageError("-n " + std::to_string(options.num_ranks) + " disagrees with --nnodes " +
                     std::to_string(nnodes) + " times --nproc-per-node " +
                     std::to_string(per_node));
  }
  if (world > kMaxRanks) {
    throw UsageError("--nnodes " + std::to_string(nnodes) + " times --nproc-per-node " +
                     std::to_string(per_node) + " is more than " + std::to_string(kMaxRanks) +
                     " ranks");
  }
  layout.world_size = static_cast<int>(world);
  layout.ranks_per_node.assign(static_cast<size_t>(nnodes), per_node);
  return layout;
}

}  // namespace weft::weftrun

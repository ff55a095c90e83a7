// Where a job's ranks run: how many hosts ("nodes"), how many ranks on each, and which
// global ranks those are. Node k runs ranks first_rank(k) .. first_rank(k) +
// ranks_per_node[k] - 1, so every host computes the same numbering from the same command
// line, with nothing exchanged.
#pragma once

#include <string>
#include <vector>

#include "tools/weftrun/options.h"

namespace weft::weftrun {

struct JobLayout {
  int world_size = 0;
  std::vector<int> ranks_per_node;
  std::vector<std::string> hosts;  // one per node with -H or --hostfile; empty otherwise

  int nnodes() const { return static_cast<int>(ranks_per_node.size()); }
  int first_rank(int node) const;
};

// A hostfile's text: one host per line, "host", "host slots=N" or "host:N"; '#' starts a
// comment. `name` is the file's name, for messages. Throws UsageError naming the line.
std::vector<HostSlots> parse_hostfile(const std::string& name, const std::string& text);

// The hosts of -H or --hostfile (read here), or none.
std::vector<HostSlots> hosts_of(const Options& options);

// Throws UsageError when the counts disagree: -n against --nnodes and --nproc-per-node,
// or more ranks than the hosts have slots. With hosts, ranks fill them in order and a
// host left without any is not part of the job.
JobLayout layout_job(const Options& options, const std::vector<HostSlots>& hosts);

}  // namespace weft::weftrun

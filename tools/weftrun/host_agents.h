// Starting weftrun on other hosts (-H, --hostfile): for each node the launch agent (ssh
// by default) runs one shell command line on that host,
//   read -r WEFT_AUTH_TOKEN && export WEFT_AUTH_TOKEN && exec WEFTRUN -H LIST -n N
//       --node-rank K --master-addr A --master-port Q [options] -- PROGRAM ARGS
// so every node derives the same rank numbering from the same LIST, node 0's weftrun
// hosts the store at A:Q, and the job's secret travels on the agent's stdin rather than
// in a command line anyone on the host could read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/weftrun/job_layout.h"
#include "tools/weftrun/options.h"

namespace weft::weftrun {

struct AgentLaunch {
  std::string agent;    // a command, split at spaces: "ssh -o BatchMode=yes"
  std::string weftrun;  // weftrun's path, assumed the same on every host
  std::string master_addr;
  uint16_t master_port = 0;
  std::vector<std::string> exports;  // resolved -x assignments, "NAME=value"
};

// The argv that starts node `node`'s weftrun.
std::vector<std::string> agent_command(const Options& options, const JobLayout& layout, int node,
                                       const AgentLaunch& launch);

// `text` as one word for a POSIX shell.
std::string shell_quote(const std::string& text);

// The path of the running executable.
std::string this_executable();

}  // namespace weft::weftrun

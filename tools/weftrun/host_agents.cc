#include "tools/weftrun/host_agents.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <sstream>

#include "tools/weftrun/exit_report.h"
#include "weft/error.h"

namespace weft::weftrun {
namespace {

const char* bind_to_name(BindTo how) {
  switch (how) {
    case BindTo::kCore:
      return "core";
    case BindTo::kNuma:
      return "numa";
    case BindTo::kNone:
      break;
  }
  return "none";
}

// The layout as -H writes it, with the counts each host really runs.
std::string host_list(const JobLayout& layout) {
  std::string list;
  for (int k = 0; k < layout.nnodes(); ++k) {
    const std::string& host = layout.hosts[static_cast<size_t>(k)];
    bool ipv6 = host.find(':') != std::string::npos;
    list += (k == 0 ? "" : ",") + (ipv6 ? "[" + host + "]" : host) + ":" +
            std::to_string(layout.ranks_per_node[static_cast<size_t>(k)]);
  }
  return list;
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::vector<std::string> agent_command(const Options& options, const JobLayout& layout, int node,
                                       const AgentLaunch& launch) {
  std::vector<std::string> remote = {
      launch.weftrun,
      "-H",
      host_list(layout),
      "-n",
      std::to_string(layout.world_size),
      "--node-rank",
      std::to_string(node),
      "--master-addr",
      launch.master_addr,
      "--master-port",
      std::to_string(launch.master_port),
      "--grace",
      format_seconds(options.grace),
      "--bind-to",
      bind_to_name(options.bind_to),
  };
  if (options.timeout) {
    remote.push_back("--timeout");
    remote.push_back(format_seconds(*options.timeout));
  }
  if (!options.prefix_output) remote.push_back("--no-prefix");
  if (options.pass_local_rank) remote.push_back("--pass-local-rank");
  for (const auto& assignment : launch.exports) {
    remote.push_back("-x");
    remote.push_back(assignment);
  }
  remote.push_back("--");
  remote.push_back(options.program);
  remote.insert(remote.end(), options.program_args.begin(), options.program_args.end());

  std::string line = "read -r WEFT_AUTH_TOKEN && export WEFT_AUTH_TOKEN && exec";
  for (const auto& word : remote) line += " " + shell_quote(word);

  std::vector<std::string> argv;
  std::istringstream agent(launch.agent);
  std::string word;
  while (agent >> word) argv.push_back(word);
  if (argv.empty()) throw UsageError("--launch-agent: an empty command");
  argv.push_back(layout.hosts[static_cast<size_t>(node)]);
  argv.push_back(line);
  return argv;
}

std::string this_executable() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) {
    throw Error(ErrorCode::kInternal,
                std::string("weftrun: cannot find its own executable: ") + std::strerror(errno));
  }
  return std::string(path, static_cast<size_t>(n));
}

}  // namespace weft::weftrun

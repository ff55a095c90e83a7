#include "tools/weftrun/launcher.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/env.h"
#include "base/host_identity.h"
#include "base/log.h"
#include "base/random_id.h"
#include "base/socket.h"
#include "rendezvous/launcher_reports.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"
#include "tools/weftrun/cpu_binding.h"
#include "tools/weftrun/host_agents.h"
#include "tools/weftrun/job.h"
#include "tools/weftrun/job_layout.h"
#include "tools/weftrun/job_signals.h"
#include "tools/weftrun/node_coordinator.h"
#include "tools/weftrun/output_relay.h"
#include "tools/weftrun/rank_environment.h"
#include "tools/weftrun/rank_process.h"
#include "weft/error.h"

extern char** environ;

extern char** environ;

namespace weft::weftrun {
namespace {

using Clock = std::chrono::steady_clock;
const char* const kStoreHost = "127.0.0.1";

// Enough descriptors for two pipes per rank; raised only as far as the job needs,
// since the ranks inherit the limit.
void ensure_descriptor_limit(int num_ranks) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  rlim_t needed = static_cast<rlim_t>(num_ranks) * 2 + 64;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= needed) return;
  if (limit.rlim_cur == RLIM_INFINITY) return;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    throw Error(ErrorCode::kInvalidArgument,
                "weftrun: -n " + std::to_string(num_ranks) + " needs " + std::to_string(needed) +
                    " open files, but the hard limit (ulimit -Hn) is " +
                    std::to_string(limit.rlim_max));
  }
  limit.rlim_cur = needed;
  setrlimit(RLIMIT_NOFILE, &limit);
}
// The job's shared secret: the one weftrun was given, or a fresh random one. The store
// and every rank's links then refuse connections that do not present it; the ranks
// inherit it with weftrun's environment.
void ensure_auth_token() {
  if (base::env::get("WEFT_AUTH_TOKEN")) return;
  char token[33];
  snprintf(token, sizeof token, "%016llx%016llx",
           static_cast<unsigned long long>(base::random_id()),
           static_cast<unsigned long long>(base::random_id()));
  setenv("WEFT_AUTH_TOKEN", token, 1);
}

std::vector<std::string> inherited_environment() {
  std::vector<std::string> inherited;
  for (char** entry = environ; *entry != nullptr; ++entry) inherited.emplace_back(*entry);
  return inherited;
}

// The -x assignments, with a warning for each `-x NAME` whose NAME weftrun lacks.
ResolvedExports resolve_exports_or_warn(const Options& options,
                                        const std::vector<std::string>& inherited) {
  ResolvedExports exports = resolve_exports(options.exports, inherited);
  for (const auto& name : exports.missing) {
    report("weftrun: -x " + name + ": " + name +
           " is not set in weftrun's environment; the ranks will not have it");
  }
  return exports;
}

// This node's ranks, told where they stand and where the store is.
std::vector<LaunchUnit> rank_units(const Options& options, const JobLayout& layout, int node,
                                   const std::string& store_host, uint16_t store_port,
                                   const JobSignals& signals) {
  std::vector<std::string> inherited = inherited_environment();
  ResolvedExports exports = resolve_exports_or_warn(options, inherited);
  int local_ranks = layout.ranks_per_node[static_cast<size_t>(node)];
  BindingPlan binding;
  if (options.bind_to != BindTo::kNone) {
    binding = plan_binding(options.bind_to, local_ranks, read_machine_layout());
    if (!binding.warning.empty()) report("weftrun: --bind-to: " + binding.warning);
  }
  bool stdin_is_terminal = isatty(STDIN_FILENO) == 1;
  int first = layout.first_rank(node);
  std::vector<LaunchUnit> units(static_cast<size_t>(local_ranks));
  for (int local = 0; local < local_ranks; ++local) {
    LaunchUnit& unit = units[static_cast<size_t>(local)];
    unit.index = first + local;
    unit.prefix = options.prefix_output ? rank_prefix(unit.index) : "";
    RankPlacement placement{unit.index, layout.world_size, store_host, store_port,
                            local,      local_ranks,       node,       options.prefix_output};
    unit.request.program = options.program;
    unit.request.args = options.program_args;
    if (options.pass_local_rank)
      unit.request.args.push_back("--local_rank=" + std::to_string(local));
    unit.request.signal_mask = signals.rank_signal_mask();
    unit.request.default_signals = signals.rank_default_signals();
    unit.request.environment = rank_environment(inherited, exports.assignments, placement);
    unit.request.inherit_stdin = unit.index == 0 && !stdin_is_terminal;
    if (!binding.ranks.empty()) {
      unit.cpus = binding.ranks[static_cast<size_t>(local)].cpus;
      unit.binding = binding.ranks[static_cast<size_t>(local)].description;
    }
  }
  return units;
}

// -H or --hostfile without --node-rank: this weftrun starts one weftrun per host through
// the launch agent and relays their output; they run the job between themselves, with
// node 0's weftrun hosting the store.
int run_from_head(const Options& options, const JobLayout& layout) {
  ensure_auth_token();
  JobSignals signals;
  AgentLaunch launch;
  launch.agent = options.launch_agent;
  launch.weftrun = this_executable();
  launch.master_addr = options.master_addr.empty() ? layout.hosts.front() : options.master_addr;
  launch.master_port = options.master_port != 0 ? options.master_port : kDefaultMasterPort;
  std::vector<std::string> inherited = inherited_environment();
  ResolvedExports exports = resolve_exports_or_warn(options, inherited);
  launch.exports = exports.assignments;
  std::vector<LaunchUnit> units(static_cast<size_t>(layout.nnodes()));
  for (int node = 0; node < layout.nnodes(); ++node) {
    LaunchUnit& unit = units[static_cast<size_t>(node)];
    unit.index = node;
    std::vector<std::string> argv = agent_command(options, layout, node, launch);
    unit.request.program = argv.front();
    unit.request.args.assign(argv.begin() + 1, argv.end());
    unit.request.signal_mask = signals.rank_signal_mask();
    unit.request.default_signals = signals.rank_default_signals();
    unit.request.environment = inherited;
    unit.request.stdin_text = std::string(*base::env::get("WEFT_AUTH_TOKEN")) + "\n";
    WEFT_LOG(INFO) << "weftrun: node " << node << " on " << layout.hosts[static_cast<size_t>(node)];
  }
  JobRole role;
  role.unit = "node";
  return run_units(options, signals, std::move(units), std::move(role));
}

}  // namespace

int run_job(const Options& options) {
  std::vector<HostSlots> hosts = hosts_of(options);
  JobLayout layout = layout_job(options, hosts);
  if (!layout.hosts.empty() && !options.node_rank) return run_from_head(options, layout);
  int node = options.node_rank.value_or(0);
  if (node >= layout.nnodes()) {
    throw UsageError("--node-rank " + std::to_string(node) + ": the job has only " +
                     std::to_string(layout.nnodes()) + " node(s)");
  }
  int local_ranks = layout.ranks_per_node[static_cast<size_t>(node)];
  ensure_descriptor_limit(local_ranks);
  bool several_nodes = layout.nnodes() > 1;
  if (!several_nodes) {
    ensure_auth_token();
  } else if (!base::env::get("WEFT_AUTH_TOKEN")) {
    // Every node would draw a different one; the same secret must come from outside.
    WEFT_LOG(INFO) << "weftrun: WEFT_AUTH_TOKEN is not set: the job's store and links accept "
                      "connections from anyone who can reach them";
  }
  // Before the store: its thread must inherit the blocked signals.
  JobSignals signals;
  std::optional<rendezvous::TcpStoreServer> store;
  std::string store_host = kStoreHost;
  uint16_t store_port = 0;
  std::unique_ptr<NodeCoordinator> coordinator;
  JobRole role;
  role.node = node;
  if (!several_nodes) {
    store.emplace(base::resolve(kStoreHost, 0).front());
    store_port = store->port();
  } else {
    store_host = options.master_addr;
    store_port = options.master_port != 0 ? options.master_port : kDefaultMasterPort;
    role.store = store_host + ":" + std::to_string(store_port);
    if (node == 0) {
      // Every interface: --master-addr may be a name that resolves to loopback here.
      int family = base::resolve(store_host, store_port).front().family();
      try {
        store.emplace(base::wildcard_address(family, store_port));
      } catch (const base::AddressInUse& e) {
        throw Error(e.code(), "weftrun: node 0 cannot host the job's store: port " +
                                  std::to_string(store_port) +
                                  " is in use by another job or server on this host; choose "
                                  "another --master-port (" +
                                  e.what() + ")");
      }
    }
    base::Deadline deadline =
        base::Deadline::after(base::env::get_seconds("WEFT_TIMEOUT", std::chrono::seconds(300)));
    std::unique_ptr<rendezvous::Store> client;
    try {
      client = std::make_unique<rendezvous::TcpStoreClient>(store_host, store_port, deadline);
    } catch (const Error& e) {
      throw Error(e.code(), "weftrun: node " + std::to_string(node) +
                                ": cannot reach the job's store on node 0 at " + role.store + ": " +
                                e.what());
    }
    coordinator = std::make_unique<NodeCoordinator>(std::move(client), node, layout.nnodes(),
                                                    base::local_host_identity().hostname);
    coordinator->join();
    role.coordinator = coordinator.get();
    role.world_size = layout.world_size;
  }
  if (store) {
    WEFT_LOG(INFO) << "weftrun: rendezvous store at " << store->address();
  }
  // A job on one host: its reports are read from the store this weftrun hosts, once
  // the ranks have ended. (Across hosts, whether the rank waited for ended by itself is
  // known only to its own node's weftrun.)
  std::unique_ptr<rendezvous::Store> reports;
  if (!several_nodes) {
    role.waited_for = [&reports, store_port](int index) -> std::optional<int> {
      base::Deadline soon = base::Deadline::after(std::chrono::seconds(5));
      if (!reports)
        reports = std::make_unique<rendezvous::TcpStoreClient>(kStoreHost, store_port, soon);
      std::string key = rendezvous::timed_out_waiting_key(index);
      if (!reports->check({key}, soon)) return std::nullopt;
      return rendezvous::parse_waited_for(reports->get(key, soon));
    };
  }
  std::vector<LaunchUnit> units =
      rank_units(options, layout, node, store_host, store_port, signals);
  return run_units(options, signals, std::move(units), std::move(role));
}

}  // namespace weft::weftrun

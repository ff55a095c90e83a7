#include "tools/weftrun/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "tools/weftrun/rank_environment.h"

namespace weft::weftrun {
namespace {

// Longer than any job anyone waits for, short enough that milliseconds cannot overflow.
constexpr double kMaxSeconds = 1e8;

// An integer from `low` to `high`; `what` says what it counts, and `where` (the flag
// and the text it was given) where it came from, for the message.
int parse_integer(const std::string& where, const std::string& text, long long low, long long high,
                  const std::string& what) {
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || n < low || n > high) {
    throw UsageError(where + ": " + what + " must be an integer from " + std::to_string(low) +
                     " to " + std::to_string(high));
  }
  return static_cast<int>(n);
}

// The integer value of `flag`.
int parse_flag_integer(const std::string& flag, const std::string& text, long long low,
                       long long high, const std::string& what) {
  return parse_integer(flag + " " + text, text, low, high, what);
}

std::chrono::milliseconds parse_seconds(const std::string& flag, const std::string& text,
                                        bool zero_allowed) {
  errno = 0;
  char* end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  bool in_range = zero_allowed ? seconds >= 0 : seconds > 0;
  if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(seconds) || !in_range ||
      seconds > kMaxSeconds) {
    throw UsageError(flag + " " + text + ": expected a number of seconds " +
                     (zero_allowed ? "(0 or more)" : "greater than 0"));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

ExportedVariable parse_export(const std::string& text) {
  ExportedVariable exported;
  size_t equals = text.find('=');
  exported.name = text.substr(0, equals);
  if (equals != std::string::npos) exported.value = text.substr(equals + 1);
  if (!is_valid_variable_name(exported.name)) {
    throw UsageError("-x " + text + ": '" + exported.name + "' is not a variable name");
  }
  for (const auto& reserved : launcher_variable_names()) {
    if (exported.name == reserved) {
      throw UsageError("-x " + text + ": " + reserved + " is set by weftrun for each rank");
    }
  }
  return exported;
}

// Walks the arguments; `--flag=value` and `--flag value` are the same thing.
class ArgumentCursor {
 public:
  explicit ArgumentCursor(const std::vector<std::string>& args) : args_(args) {}

  bool done() const { return next_ >= args_.size(); }
  const std::string& take() { return args_[next_++]; }
  void rest_into(std::vector<std::string>* out) {
    out->assign(args_.begin() + static_cast<std::ptrdiff_t>(next_), args_.end());
    next_ = args_.size();
  }

  std::string value_of(const std::string& flag, const std::optional<std::string>& inline_value) {
    if (inline_value) return *inline_value;
    if (done()) throw UsageError(flag + " needs a value");
    return take();
  }

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0;
};

int parse_rank_count(const std::string& flag, const std::string& text) {
  return parse_flag_integer(flag, text, 1, kMaxRanks, "the number of ranks");
}

}  // namespace

std::vector<HostSlots> parse_host_list(const std::string& flag, const std::string& text) {
  std::vector<HostSlots> hosts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string entry = text.substr(start, comma == std::string::npos ? comma : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    HostSlots host;
    // The last colon: an IPv6 address needs brackets ("[fd00::1]:2") to carry a count.
    size_t colon = entry.rfind(':');
    bool bracketed = !entry.empty() && entry.front() == '[';
    if (colon != std::string::npos && (!bracketed || entry[colon - 1] == ']')) {
      host.slots = parse_integer(flag + " " + text, entry.substr(colon + 1), 1, kMaxRanks,
                                 "the number of slots of '" + entry.substr(0, colon) + "'");
      entry = entry.substr(0, colon);
    }
    if (bracketed && entry.size() > 2 && entry.back() == ']')
      entry = entry.substr(1, entry.size() - 2);
    if (entry.empty()) throw UsageError(flag + " " + text + ": an empty host name");
    host.host = entry;
    hosts.push_back(host);
  }
  return hosts;
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  ArgumentCursor cursor(args);
  bool have_ranks = false;
  while (!cursor.done()) {
    std::string arg = cursor.take();
    if (arg == "--") {
      if (cursor.done()) throw UsageError("missing the program to run after '--'");
      options.program = cursor.take();
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      options.program = arg;
      break;
    }
    std::string flag = arg;
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) == 0) {
      size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        flag = arg.substr(0, equals);
        inline_value = arg.substr(equals + 1);
      }
      for (size_t i = 2; i < flag.size(); ++i) {
        if (flag[i] == '_') flag[i] = '-';
      }
    }
    if (flag == "-h" || flag == "--help") {
      options.show_help = true;
      return options;
    } else if (flag == "--version") {
      options.show_version = true;
      return options;
    } else if (flag == "--use-env" && !inline_value) {
      // The original launcher's switch from --local_rank to LOCAL_RANK: weftrun always
      // sets LOCAL_RANK, so there is nothing to switch.
    } else if (flag == "--pass-local-rank" && !inline_value) {
      options.pass_local_rank = true;
    } else if (flag == "-n" || flag == "-np") {
      options.num_ranks = parse_rank_count(flag, cursor.value_of(flag, inline_value));
      have_ranks = true;
    } else if (flag == "-x") {
      options.exports.push_back(parse_export(cursor.value_of(flag, inline_value)));
    } else if (flag == "--timeout") {
      options.timeout = parse_seconds(flag, cursor.value_of(flag, inline_value), false);
    } else if (flag == "--grace") {
      options.grace = parse_seconds(flag, cursor.value_of(flag, inline_value), true);
    } else if (flag == "--nproc-per-node") {
      options.nproc_per_node = parse_rank_count(flag, cursor.value_of(flag, inline_value));
    } else if (flag == "--nnodes") {
      options.nnodes = parse_flag_integer(flag, cursor.value_of(flag, inline_value), 1, kMaxRanks,
                                          "the number of nodes");
    } else if (flag == "--node-rank") {
      options.node_rank = parse_flag_integer(flag, cursor.value_of(flag, inline_value), 0,
                                             kMaxRanks - 1, "the node rank");
    } else if (flag == "--master-addr") {
      options.master_addr = cursor.value_of(flag, inline_value);
      if (options.master_addr.empty()) throw UsageError(flag + " needs a host name or address");
    } else if (flag == "--master-port") {
      options.master_port = static_cast<uint16_t>(
          parse_flag_integer(flag, cursor.value_of(flag, inline_value), 1, 65535, "the port"));
    } else if (flag == "-H" || flag == "--host") {
      options.hosts = parse_host_list(flag, cursor.value_of(flag, inline_value));
    } else if (flag == "--hostfile") {
      options.hostfile = cursor.value_of(flag, inline_value);
      if (options.hostfile.empty()) throw UsageError(flag + " needs a file name");
    } else if (flag == "--launch-agent") {
      options.launch_agent = cursor.value_of(flag, inline_value);
      if (options.launch_agent.empty()) throw UsageError(flag + " needs a command");
    } else if (flag == "--bind-to") {
      std::string how = cursor.value_of(flag, inline_value);
      std::optional<BindTo> bind_to = parse_bind_to(how);
      if (!bind_to) throw UsageError(flag + " " + how + ": expected core, numa or none");
      options.bind_to = *bind_to;
    } else if (flag == "--no-prefix" && !inline_value) {
      options.prefix_output = false;
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (options.program.empty()) throw UsageError("missing the program to run");
  bool several_hosts = !options.hosts.empty() || !options.hostfile.empty();
  if (!have_ranks && options.nproc_per_node == 0 && !several_hosts) {
    throw UsageError("missing -n N (or --nproc-per-node P), the number of ranks to start");
  }
  if (!options.hosts.empty() && !options.hostfile.empty()) {
    throw UsageError("-H and --hostfile both name the hosts; give one of them");
  }
  if (several_hosts && options.nproc_per_node != 0) {
    throw UsageError("--nproc-per-node with " +
                     std::string(options.hosts.empty() ? "--hostfile" : "-H") +
                     ": the hosts' slot counts say how many ranks each one runs");
  }
  int nnodes = std::max(options.nnodes, 1);
  if (options.node_rank && *options.node_rank >= nnodes && !several_hosts) {
    throw UsageError("--node-rank " + std::to_string(*options.node_rank) +
                     ": must be below --nnodes " + std::to_string(nnodes));
  }
  if (options.node_rank && several_hosts && options.master_addr.empty()) {
    throw UsageError(
        "--node-rank with -H/--hostfile needs --master-addr A, where the job's store is");
  }
  if (nnodes > 1 && !several_hosts) {
    if (!options.node_rank) {
      throw UsageError("--nnodes " + std::to_string(nnodes) +
                       " needs --node-rank K (which node this host is, 0 to " +
                       std::to_string(nnodes - 1) +
                       "), or -H/--hostfile to start every node from here");
    }
    if (options.master_addr.empty()) {
      throw UsageError("--nnodes " + std::to_string(nnodes) +
                       " needs --master-addr A, an address of node 0 that every node can reach");
    }
  }
  cursor.rest_into(&options.program_args);
  return options;
}

std::string usage_text() {
  return "usage: weftrun -n N [options] program [args...]\n"
         "       weftrun --nnodes N --node-rank K --nproc-per-node P --master-addr A\n"
         "               [--master-port Q] [options] program [args...]      (on each host)\n"
         "       weftrun -H host1:slots,host2:slots [options] program [args...]\n"
         "\n"
         "Starts the ranks of `program`, hosts their rendezvous store and relays their\n"
         "output, each line prefixed with \"[rank] \".\n"
         "\n"
         "options:\n"
         "  -n N, -np N     number of ranks in the job (1 to " +
         std::to_string(kMaxRanks) +
         ")\n"
         "  --nproc-per-node P\n"
         "                  ranks on each host (-n is then --nnodes times P)\n"
         "  --nnodes N      hosts in the job, each running its own weftrun\n"
         "  --node-rank K   which of them this host is (0 to N-1); node 0 hosts the store\n"
         "  --master-addr A an address of node 0 that every host can reach\n"
         "  --master-port Q the store's port on node 0 (default " +
         std::to_string(kDefaultMasterPort) +
         ")\n"
         "  -H LIST         start the job on these hosts, \"host[:slots],...\" (a host\n"
         "                  without slots runs one rank); ranks fill the hosts in order\n"
         "  --hostfile F    the same, one host per line: \"host [slots=N]\" or \"host:N\"\n"
         "  --launch-agent C\n"
         "                  run C HOST COMMAND to start weftrun on another host\n"
         "                  (default ssh; weftrun must be at the same path there)\n"
         "  --bind-to W     bind each rank to a core, a NUMA node or nothing\n"
         "                  (core, numa, none; default none)\n"
         "  -x NAME         pass NAME with its value in weftrun's environment to the ranks\n"
         "  -x NAME=value   set NAME=value for the ranks (repeatable; a later one wins)\n"
         "  --timeout S     stop the job after S seconds and exit with status 124\n"
         "  --grace S       after the first rank fails, wait S seconds (default 5) for the\n"
         "                  others to exit by themselves before stopping them\n"
         "  --no-prefix     relay output lines without the \"[rank] \" prefix\n"
         "  --pass-local-rank\n"
         "                  append --local_rank=N (the rank's LOCAL_RANK) to each rank's\n"
         "                  arguments, as the original torch.distributed.launch did\n"
         "  --use-env       accepted for torch.distributed.launch's --use_env; changes\n"
         "                  nothing, since every rank has LOCAL_RANK in its environment\n"
         "  --version       print weft's version\n"
         "  -h, --help      show this help\n"
         "\n"
         "torchrun's spellings (--nproc_per_node, --node_rank, --master_addr,\n"
         "--master_port, --use_env, --pass_local_rank) work too.\n"
         "\n"
         "Each rank gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (its\n"
         "node), MASTER_ADDR, MASTER_PORT, WEFT_LAUNCHER_STORE=1 and WEFT_RANK_PREFIXED\n"
         "(1 unless --no-prefix: weft's log lines then leave out the rank the prefix\n"
         "shows). SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to the ranks; a\n"
         "second SIGINT kills them. The exit status is that of the first rank to fail\n"
         "(128+N for a signal N), 124 on --timeout, 0 when all ranks succeed. In a job\n"
         "on several hosts, a failure on one host stops the ranks on every host, and\n"
         "every weftrun reports it.\n";
}

}  // namespace weft::weftrun

// weftrun's command line: `weftrun -n N [options] prog [args...]`, or for a job on several
// hosts `--nnodes N --node-rank K --nproc-per-node P --master-addr A` on each host, or
// `-H host:slots,...` / `--hostfile F` on one host to start them all. parse_options()
// turns the arguments (without argv[0]) into Options or throws UsageError naming the flag
// or value at fault; it reads nothing but its argument (a --hostfile is read later, see
// job_layout.h), so every case is testable. Options end at the first argument that is not
// an option (or after `--`): that is the program, and everything after it belongs to the
// program. `--use_env`, the original launcher's flag, is accepted and changes nothing:
// LOCAL_RANK is always in the environment. Long options also take torchrun's spellings
// (`--nproc_per_node`, `--node_rank`,
// `--master_addr`, `--master_port`): underscores in a long option's name count as dashes.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tools/weftrun/cpu_binding.h"
#include "weft/error.h"

namespace weft::weftrun {

inline constexpr int kMaxRanks = 4096;

// A mistake on the command line; weftrun prints it and exits with kUsageExitCode.
class UsageError : public InvalidArgument {
 public:
  explicit UsageError(const std::string& message) : InvalidArgument(message) {}
};

inline constexpr int kUsageExitCode = 2;

// torchrun's default, so scripts written for it need no --master-port.
inline constexpr uint16_t kDefaultMasterPort = 29500;

// `-x NAME` (value: nullopt, taken from weftrun's environment) or `-x NAME=value`.
struct ExportedVariable {
  std::string name;
  std::optional<std::string> value;

  bool operator==(const ExportedVariable&) const = default;
};

// One entry of -H or of a hostfile: a host and the number of ranks it may run.
struct HostSlots {
  std::string host;
  int slots = 1;

  bool operator==(const HostSlots&) const = default;
};

struct Options {
  bool show_help = false;     // -h/--help: everything else is left unparsed
  bool show_version = false;  // --version: likewise
  int num_ranks = 0;          // -n: ranks in the whole job; 0 when not given
  int nproc_per_node = 0;     // --nproc-per-node: ranks on each host; 0 when not given
  int nnodes = 0;             // --nnodes; 0 when not given
  // --node-rank: this weftrun runs node K's share of a job that weftruns on other hosts
  // run the rest of.
  std::optional<int> node_rank;
  std::string master_addr;       // --master-addr: where node 0 hosts the store; "" when not given
  uint16_t master_port = 0;      // --master-port; 0 when not given
  std::vector<HostSlots> hosts;  // -H
  std::string hostfile;          // --hostfile
  // --launch-agent: how weftrun starts itself on another host, called as
  // `AGENT HOST COMMAND` with COMMAND one shell command line, as ssh takes it.
  std::string launch_agent = "ssh";
  BindTo bind_to = BindTo::kNone;
  std::vector<ExportedVariable> exports;  // in command-line order; a later one wins
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::milliseconds grace{5000};
  bool prefix_output = true;
  // --pass-local-rank: each rank's arguments end with --local_rank=N (N its LOCAL_RANK),
  // as the original launcher passed it to programs written before LOCAL_RANK existed.
  bool pass_local_rank = false;
  std::string program;
  std::vector<std::string> program_args;
};

Options parse_options(const std::vector<std::string>& args);

// "host1:2,host2,host3:4" (a host without ":N" has one slot), as -H takes it.
std::vector<HostSlots> parse_host_list(const std::string& flag, const std::string& text);

// The --help text.
std::string usage_text();

}  // namespace weft::weftrun

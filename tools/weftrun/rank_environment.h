// The environment each rank starts with: weftrun's own environment, then the `-x`
// assignments, then the variables that tell the rank where it stands and where the
// store is (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR,
// MASTER_PORT, WEFT_LAUNCHER_STORE=1, and WEFT_RANK_PREFIXED, 1 when weftrun prefixes the
// rank's output lines with its rank, so weft's log lines leave theirs out). Later entries replace
// earlier ones of the same name, so a value inherited from an enclosing launcher never leaks into a
// rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/weftrun/options.h"

namespace weft::weftrun {

// Names of the variables weftrun sets for every rank; `-x` may not override them.
const std::vector<std::string>& launcher_variable_names();

// A variable name as a shell would accept it: [A-Za-z_][A-Za-z0-9_]*.
bool is_valid_variable_name(const std::string& name);

struct ResolvedExports {
  std::vector<std::string> assignments;  // "NAME=value", in command-line order
  std::vector<std::string> missing;      // `-x NAME` given but NAME is not in `inherited`
};

// Gives each value-less `-x NAME` the value NAME has in `inherited` ("NAME=value"
// entries, as in environ).
ResolvedExports resolve_exports(const std::vector<ExportedVariable>& exports,
                                const std::vector<std::string>& inherited);

struct RankPlacement {
  int rank = 0;
  int world_size = 1;
  std::string store_host;
  uint16_t store_port = 0;
  int local_rank = 0;          // among the ranks on this host
  int local_world_size = 1;    // ranks on this host
  int node_rank = 0;           // torchrun's GROUP_RANK
  bool rank_prefixed = false;  // weftrun puts "[rank] " before each line the rank writes
};

// The complete environment of one rank, as "NAME=value" entries with unique names.
std::vector<std::string> rank_environment(const std::vector<std::string>& inherited,
                                          const std::vector<std::string>& assignments,
                                          const RankPlacement& placement);

}  // namespace weft::weftrun

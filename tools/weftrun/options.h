// weftrun's command line: `weftrun -n N [options] prog [args...]`. parse_options() turns
// the arguments (without argv[0]) into Options or throws UsageError naming the flag or
// value at fault; it reads nothing but its argument, so every case is testable. Options
// end at the first argument that is not an option (or after `--`): that is the program,
// and everything after it belongs to the program.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "weft/error.h"

namespace weft::weftrun {

inline constexpr int kMaxRanks = 4096;

// A mistake on the command line; weftrun prints it and exits with kUsageExitCode.
class UsageError : public InvalidArgument {
 public:
  explicit UsageError(const std::string& message) : InvalidArgument(message) {}
};

inline constexpr int kUsageExitCode = 2;

// `-x NAME` (value: nullopt, taken from weftrun's environment) or `-x NAME=value`.
struct ExportedVariable {
  std::string name;
  std::optional<std::string> value;

  bool operator==(const ExportedVariable&) const = default;
};

struct Options {
  bool show_help = false;  // -h/--help: everything else is left unparsed
  int num_ranks = 0;
  std::vector<ExportedVariable> exports;  // in command-line order; a later one wins
  std::optional<std::chrono::milliseconds> timeout;
  std::chrono::milliseconds grace{5000};
  bool prefix_output = true;
  std::string program;
  std::vector<std::string> program_args;
};

Options parse_options(const std::vector<std::string>& args);

// The --help text.
std::string usage_text();

}  // namespace weft::weftrun

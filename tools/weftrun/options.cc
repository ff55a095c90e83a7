#include "tools/weftrun/options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "tools/weftrun/rank_environment.h"

namespace weft::weftrun {
namespace {

// Longer than any job anyone waits for, short enough that milliseconds cannot overflow.
constexpr double kMaxSeconds = 1e8;

int parse_rank_count(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || n < 1 || n > kMaxRanks) {
    throw UsageError(flag + " " + text + ": the number of ranks must be an integer from 1 to " +
                     std::to_string(kMaxRanks));
  }
  return static_cast<int>(n);
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

}  // namespace

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
    }
    if (flag == "-h" || flag == "--help") {
      options.show_help = true;
      return options;
    } else if (flag == "-n" || flag == "-np") {
      options.num_ranks = parse_rank_count(flag, cursor.value_of(flag, inline_value));
      have_ranks = true;
    } else if (flag == "-x") {
      options.exports.push_back(parse_export(cursor.value_of(flag, inline_value)));
    } else if (flag == "--timeout") {
      options.timeout = parse_seconds(flag, cursor.value_of(flag, inline_value), false);
    } else if (flag == "--grace") {
      options.grace = parse_seconds(flag, cursor.value_of(flag, inline_value), true);
    } else if (flag == "--no-prefix" && !inline_value) {
      options.prefix_output = false;
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (options.program.empty()) throw UsageError("missing the program to run");
  if (!have_ranks) throw UsageError("missing -n N, the number of ranks to start");
  cursor.rest_into(&options.program_args);
  return options;
}

std::string usage_text() {
  return "usage: weftrun -n N [options] program [args...]\n"
         "\n"
         "Starts N ranks of `program` on this host, hosts their rendezvous store and\n"
         "relays their output, each line prefixed with \"[rank] \".\n"
         "\n"
         "options:\n"
         "  -n N, -np N     number of ranks (1 to " +
         std::to_string(kMaxRanks) +
         ")\n"
         "  -x NAME         pass NAME with its value in weftrun's environment to the ranks\n"
         "  -x NAME=value   set NAME=value for the ranks (repeatable; a later one wins)\n"
         "  --timeout S     stop the job after S seconds and exit with status 124\n"
         "  --grace S       after the first rank fails, wait S seconds (default 5) for the\n"
         "                  others to exit by themselves before stopping them\n"
         "  --no-prefix     relay output lines without the \"[rank] \" prefix\n"
         "  -h, --help      show this help\n"
         "\n"
         "Each rank gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,\n"
         "MASTER_PORT and WEFT_LAUNCHER_STORE=1. SIGINT, SIGTERM, SIGHUP and SIGQUIT are\n"
         "forwarded to the ranks; a second SIGINT kills them. The exit status is that of\n"
         "the first rank to fail (128+N for a signal N), 124 on --timeout, 0 when all\n"
         "ranks succeed.\n";
}

}  // namespace weft::weftrun

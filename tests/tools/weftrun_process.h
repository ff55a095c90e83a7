// WeftrunProcess: runs the real weftrun binary (from the test's runfiles) with the given
// arguments, capturing its stdout and stderr, for the integration tests. Every wait has
// a deadline, and the destructor kills a weftrun that is still running, so a broken
// launcher fails a test instead of hanging it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace weft::weftrun::testing {

// Paths relative to the test's working directory (the runfiles root).
inline constexpr char kWeftrun[] = "tools/weftrun/weftrun";
inline constexpr char kPrintRankEnv[] = "tests/tools/print_rank_env";
inline constexpr char kRankBehaviour[] = "tests/tools/rank_behaviour";
inline constexpr char kRingPass[] = "tests/tools/ring_pass";

struct WeftrunResult {
  int exit_code = -1;  // 128+N when weftrun itself was killed by signal N
  bool hung = false;   // the deadline passed and the test killed weftrun
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};
};

class WeftrunProcess {
 public:
  // `extra_environment` ("NAME=value") is added to the test's own environment.
  // `wrapper` runs weftrun, e.g. {"ip", "netns", "exec", "host-a"}.
  explicit WeftrunProcess(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_environment = {},
                          const std::vector<std::string>& wrapper = {});
  ~WeftrunProcess();

  WeftrunProcess(const WeftrunProcess&) = delete;
  WeftrunProcess& operator=(const WeftrunProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Reads output until stdout (stderr) holds `needle` `count` times; false if the deadline passes
  // or weftrun closes its output first.
  bool wait_for_stdout(const std::string& needle, int count, std::chrono::milliseconds within) {
    return wait_for(out_, needle, count, within);
  }
  bool wait_for_stderr(const std::string& needle, int count, std::chrono::milliseconds within) {
    return wait_for(err_, needle, count, within);
  }

  void send_signal(int signal_number);

  // Stops reading weftrun's stdout, as `weftrun ... | head` does.
  void close_stdout();

  // Reads to EOF and reaps weftrun; kills it (and reports hung) after `within`.
  WeftrunResult finish(std::chrono::milliseconds within = std::chrono::seconds(20));

 private:
  // One poll-and-read step; false once both pipes are closed or the deadline passed.
  bool pump(std::chrono::steady_clock::time_point deadline);
  void kill_and_reap();
  bool wait_for(const std::string& text, const std::string& needle, int count,
                std::chrono::milliseconds within);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::chrono::steady_clock::time_point started_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

// The whole run in one call.
WeftrunResult run_weftrun(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_environment = {},
                          std::chrono::milliseconds within = std::chrono::seconds(20));

}  // namespace weft::weftrun::testing

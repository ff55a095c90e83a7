// How weftrun words the end of a rank and of the job, and which exit status it returns.
// Pure functions over wait statuses, so every message is unit-tested.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace weft::weftrun {

inline constexpr int kTimeoutExitCode = 124;
inline constexpr int kCannotExecuteExitCode = 127;

// "exited with status 3" or "was killed by signal 9 (Killed)", from a waitpid() status.
std::string describe_wait_status(int wait_status);

// The shell's convention: the exit code, or 128 + the signal that killed the process.
int exit_code_of(int wait_status);

// A wait status that reads as a plain exit with `code`.
int exit_status_with_code(int code);

bool is_failure(int wait_status);

// "9 (Killed)"
std::string describe_signal(int signal_number);

// "2", "0.5", "1.25": a duration in seconds as a user would have typed it.
std::string format_seconds(std::chrono::milliseconds duration);

struct FirstFailure {
  int rank = 0;
  pid_t pid = -1;       // -1: the rank never started
  int wait_status = 0;  // meaningful when pid >= 0
  int world_size = 1;
  int failed_after = 0;       // other ranks that exited non-zero by themselves
  int stopped = 0;            // other ranks weftrun had to signal
  std::string unit = "rank";  // what weftrun started: "rank", or "node" for a host's weftrun
};

// "weftrun: rank 2 (pid 1234) was killed by signal 9 (Killed) first; 3 other rank(s)
// were stopped"
std::string describe_first_failure(const FirstFailure& failure);

}  // namespace weft::weftrun

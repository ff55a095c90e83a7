// Starting one rank: posix_spawnp (so PATH lookup works and an exec failure comes back
// as an errno instead of a child that exits 127) in a process group of its own, which
// lets weftrun signal the rank together with anything it started. The rank's stdout and
// stderr are pipes whose read ends (non-blocking, close-on-exec) weftrun keeps.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/socket.h"

namespace weft::weftrun {

class SpawnError : public std::runtime_error {
 public:
  SpawnError(const std::string& message, int error_number)
      : std::runtime_error(message), errno_(error_number) {}
  int spawn_errno() const noexcept { return errno_; }

 private:
  int errno_;
};

struct RankSpawnRequest {
  std::string program;
  std::vector<std::string> args;         // argv[1..]
  std::vector<std::string> environment;  // "NAME=value"
  bool inherit_stdin = false;            // otherwise stdin is /dev/null (or stdin_text)
  // When set, stdin is a pipe holding this text and then end-of-file: how a secret
  // reaches a process without appearing in any command line. At most PIPE_BUF bytes, so
  // writing it never waits for the reader.
  std::optional<std::string> stdin_text;
  sigset_t signal_mask;      // the mask the rank starts with
  sigset_t default_signals;  // signals reset to SIG_DFL in the rank
};

struct SpawnedRank {
  pid_t pid = -1;
  base::Fd stdout_pipe;
  base::Fd stderr_pipe;
};

// Throws SpawnError ("cannot execute 'prog': No such file or directory") when the
// program cannot be started, and when the pipes cannot be made.
SpawnedRank spawn_rank(const RankSpawnRequest& request);

}  // namespace weft::weftrun

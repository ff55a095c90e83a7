#include "tools/weftrun/rank_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace weft::weftrun {
namespace {

struct Pipe {
  base::Fd read_end;
  base::Fd write_end;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    int error = errno;
    throw SpawnError(std::string("cannot create a pipe: ") + std::strerror(error), error);
  }
  return Pipe{base::Fd(fds[0]), base::Fd(fds[1])};
}

Pipe make_output_pipe() {
  Pipe pipe = make_pipe();
  // Only weftrun's end is non-blocking: the rank sees an ordinary blocking stdout.
  int flags = fcntl(pipe.read_end.get(), F_GETFL);
  fcntl(pipe.read_end.get(), F_SETFL, flags | O_NONBLOCK);
  return pipe;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// RAII for the spawn attribute objects, which must be destroyed on every path.
class SpawnSettings {
 public:
  SpawnSettings() {
    posix_spawnattr_init(&attributes_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSettings() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attributes_);
  }
  SpawnSettings(const SpawnSettings&) = delete;
  SpawnSettings& operator=(const SpawnSettings&) = delete;

  posix_spawnattr_t attributes_;
  posix_spawn_file_actions_t actions_;
};

}  // namespace

SpawnedRank spawn_rank(const RankSpawnRequest& request) {
  Pipe out = make_output_pipe();
  Pipe err = make_output_pipe();

  SpawnSettings settings;
  posix_spawnattr_setflags(&settings.attributes_,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&settings.attributes_, 0);
  posix_spawnattr_setsigmask(&settings.attributes_, &request.signal_mask);
  posix_spawnattr_setsigdefault(&settings.attributes_, &request.default_signals);
  Pipe in;
  if (request.stdin_text) {
    if (request.stdin_text->size() > PIPE_BUF) {
      throw SpawnError("the text for the stdin of '" + request.program + "' is too long", E2BIG);
    }
    in = make_pipe();
    posix_spawn_file_actions_adddup2(&settings.actions_, in.read_end.get(), STDIN_FILENO);
  } else if (!request.inherit_stdin) {
    posix_spawn_file_actions_addopen(&settings.actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  // dup2 clears close-on-exec on the target, so only these two ends reach the rank.
  posix_spawn_file_actions_adddup2(&settings.actions_, out.write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&settings.actions_, err.write_end.get(), STDERR_FILENO);

  std::vector<std::string> argv_strings;
  argv_strings.reserve(request.args.size() + 1);
  argv_strings.push_back(request.program);
  argv_strings.insert(argv_strings.end(), request.args.begin(), request.args.end());
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(request.environment);

  pid_t pid = -1;
  int error = posix_spawnp(&pid, request.program.c_str(), &settings.actions_, &settings.attributes_,
                           argv.data(), envp.data());
  if (error != 0) {
    throw SpawnError("cannot execute '" + request.program + "': " + std::strerror(error), error);
  }
  if (request.stdin_text) {
    // A reader that exits without reading only loses the text; nothing else depends on it.
    ssize_t written =
        write(in.write_end.get(), request.stdin_text->data(), request.stdin_text->size());
    (void)written;
  }
  return SpawnedRank{pid, std::move(out.read_end), std::move(err.read_end)};
}

}  // namespace weft::weftrun

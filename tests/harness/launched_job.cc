#include "tests/harness/launched_job.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

extern char** environ;

namespace weft::testing {
namespace {

using Clock = std::chrono::steady_clock;

// The environment a command starts with: this process's, less the dropped prefixes and
// the names `extra` sets, plus `extra`.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra,
                                           const std::vector<std::string>& drop_prefixes) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool dropped = extra.count(name) != 0;
    for (const std::string& prefix : drop_prefixes) {
      if (!prefix.empty() && name.rfind(prefix, 0) == 0) dropped = true;
    }
    if (!dropped) out.push_back(std::move(entry));
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Running {
  pid_t pid = -1;
  int out = -1;  // our end of its output pipe; -1 once closed
  bool reaped = false;
  LaunchedJob result;
};

// Starts one command with its stdout and stderr on a new pipe. On failure `r.pid`
// stays -1 and the result says why.
void start(const LaunchSpec& spec, const std::vector<std::string>& drop_prefixes, Running& r) {
  if (spec.argv.empty()) {
    r.result.status = W_EXITCODE(127, 0);
    r.result.output = "run_launched_jobs: an empty command\n";
    return;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.result.status = W_EXITCODE(127, 0);
    r.result.output = std::string("run_launched_jobs: pipe: ") + std::strerror(errno) + "\n";
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<std::string> env_strings = child_environment(spec.extra_env, drop_prefixes);
  std::vector<std::string> arg_strings = spec.argv;
  std::vector<char*> envp = pointers(env_strings);
  std::vector<char*> argv = pointers(arg_strings);
  pid_t pid = -1;
  int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (error != 0) {
    close(fds[0]);
    r.result.status = W_EXITCODE(127, 0);
    r.result.output =
        "run_launched_jobs: cannot start " + spec.argv[0] + ": " + std::strerror(error) + "\n";
    return;
  }
  r.pid = pid;
  r.out = fds[0];
}

// Reads what is in `r`'s pipe; closes it at end of file (or on an error).
void read_some(Running& r) {
  char chunk[4096];
  ssize_t n = read(r.out, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(r.out);
    r.out = -1;
    return;
  }
  r.result.output.append(chunk, static_cast<size_t>(n));
}

// Whatever is already in the pipe, without waiting for more.
void drain(Running& r) {
  if (r.out < 0) return;
  fcntl(r.out, F_SETFL, fcntl(r.out, F_GETFL) | O_NONBLOCK);
  char chunk[4096];
  ssize_t n;
  while ((n = read(r.out, chunk, sizeof chunk)) > 0) {
    r.result.output.append(chunk, static_cast<size_t>(n));
  }
  close(r.out);
  r.out = -1;
}

int milliseconds_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

}  // namespace

std::string find_on_path(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& name : names) {
    std::istringstream parts(dirs);
    std::string dir;
    while (std::getline(parts, dir, ':')) {
      if (dir.empty()) continue;
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

std::set<pid_t> descendants_of(pid_t root) {
  std::map<pid_t, pid_t> parent;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
      if (pid <= 0) continue;
      std::ifstream stat("/proc/" + std::string(entry->d_name) + "/stat");
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      size_t close_paren = text.rfind(')');
      if (close_paren == std::string::npos) continue;
      std::istringstream rest(text.substr(close_paren + 1));
      std::string state;
      pid_t ppid = 0;
      rest >> state >> ppid;
      parent[pid] = ppid;
    }
    closedir(proc);
  }
  std::set<pid_t> out;
  bool grew = true;
  while (grew) {
    grew = false;
    for (auto [pid, ppid] : parent) {
      if ((ppid == root || out.count(ppid) != 0) && out.insert(pid).second) grew = true;
    }
  }
  return out;
}

void kill_and_reap_descendants() {
  for (int round = 0; round < 50; ++round) {
    std::set<pid_t> left = descendants_of(getpid());
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (left.empty()) return;
    for (pid_t pid : left) kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

const std::vector<std::string>& default_dropped_env_prefixes() {
  static const std::vector<std::string> prefixes = {
      "PMI_",       "OMPI_",      "PMIX_", "SLURM_",
      "MASTER_",    "WORLD_SIZE", "RANK",  "WEFT_LAUNCHER_STORE",
      "LOCAL_RANK",
  };
  return prefixes;
}

bool LaunchedJob::exited_with(int code) const {
  return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == code;
}

std::string LaunchedJob::describe() const {
  std::string how = WIFEXITED(status)     ? "exit " + std::to_string(WEXITSTATUS(status))
                    : WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "status " + std::to_string(status);
  return timed_out ? "timed out (then " + how + ")" : how;
}

std::vector<LaunchedJob> run_launched_jobs(const std::vector<LaunchSpec>& commands,
                                           std::chrono::seconds timeout,
                                           const std::vector<std::string>& drop_env_prefixes) {
  int was_subreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  Clock::time_point deadline = Clock::now() + timeout;

  std::vector<Running> running(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) start(commands[i], drop_env_prefixes, running[i]);

  // Collect the output until every command, and everything it started, has closed its
  // pipe, or until the deadline.
  while (Clock::now() < deadline) {
    std::vector<pollfd> polled;
    std::vector<Running*> owners;
    for (Running& r : running) {
      if (r.out < 0) continue;
      polled.push_back({r.out, POLLIN, 0});
      owners.push_back(&r);
    }
    if (polled.empty()) break;
    int ready = poll(polled.data(), polled.size(), milliseconds_until(deadline));
    if (ready <= 0) continue;  // EINTR, or the deadline, which the loop condition ends
    for (size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].revents != 0) read_some(*owners[i]);
    }
  }

  // Then wait for each to exit, until the same deadline.
  while (true) {
    bool waiting = false;
    for (Running& r : running) {
      if (r.pid < 0 || r.reaped) continue;
      pid_t got = waitpid(r.pid, &r.result.status, WNOHANG);
      if (got == r.pid || (got < 0 && errno == ECHILD)) {
        r.reaped = true;
      } else {
        waiting = true;
      }
    }
    if (!waiting || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  // Whatever is still running or still holds its output open has timed out.
  for (Running& r : running) {
    if (r.pid < 0) continue;
    if (!r.reaped || r.out >= 0) r.result.timed_out = true;
    if (!r.reaped) {
      kill(r.pid, SIGKILL);
      waitpid(r.pid, &r.result.status, 0);
      r.reaped = true;
    }
  }
  kill_and_reap_descendants();
  for (Running& r : running) drain(r);
  prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);

  std::vector<LaunchedJob> results;
  for (Running& r : running) results.push_back(std::move(r.result));
  return results;
}

LaunchedJob run_launched_job(const std::vector<std::string>& argv, std::chrono::seconds timeout,
                             const std::map<std::string, std::string>& extra_env,
                             const std::vector<std::string>& drop_env_prefixes) {
  return run_launched_jobs({LaunchSpec{argv, extra_env}}, timeout, drop_env_prefixes).front();
}

int count_lines(const std::string& output, const std::string& line) {
  int count = 0;
  std::istringstream lines(output);
  std::string l;
  while (std::getline(lines, l)) {
    if (l == line) ++count;
  }
  return count;
}

}  // namespace weft::testing

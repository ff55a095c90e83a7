#include "tests/tools/weftrun_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace weft::weftrun::testing {
namespace {

using Clock = std::chrono::steady_clock;

size_t count_of(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

WeftrunProcess::WeftrunProcess(const std::vector<std::string>& args,
                               const std::vector<std::string>& extra_environment,
                               const std::vector<std::string>& wrapper) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> argv_strings = wrapper;
  argv_strings.push_back(kWeftrun);
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), extra_environment.begin(), extra_environment.end());
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  started_ = Clock::now();
  int error = posix_spawnp(&pid_, argv_strings.front().c_str(), &actions, nullptr, argv.data(),
                           envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (error != 0) {
    close(out_fd_);
    close(err_fd_);
    throw std::runtime_error("cannot start " + argv_strings.front() + ": " + std::strerror(error));
  }
}

WeftrunProcess::~WeftrunProcess() {
  kill_and_reap();
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

void WeftrunProcess::kill_and_reap() {
  if (reaped_ || pid_ < 0) return;
  // SIGTERM first so weftrun takes its ranks down; they also die with their parent.
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, &wait_status_, WNOHANG) == pid_) {
      reaped_ = true;
      return;
    }
    usleep(20 * 1000);
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &wait_status_, 0);
  reaped_ = true;
}

bool WeftrunProcess::pump(Clock::time_point deadline) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (out_fd_ < 0 && err_fd_ < 0) return false;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return false;
  int n = poll(fds, 2, static_cast<int>(left));
  if (n < 0 && errno != EINTR) return false;
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || fds[i].revents == 0) continue;
    char buffer[4096];
    ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
    int& fd = i == 0 ? out_fd_ : err_fd_;
    if (got > 0) {
      (i == 0 ? out_ : err_).append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      close(fd);
      fd = -1;
    }
  }
  return true;
}

bool WeftrunProcess::wait_for(const std::string& text, const std::string& needle, int count,
                              std::chrono::milliseconds within) {
  auto deadline = Clock::now() + within;
  while (count_of(text, needle) < static_cast<size_t>(count)) {
    if (!pump(deadline)) return false;
  }
  return true;
}

void WeftrunProcess::close_stdout() {
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
}

void WeftrunProcess::send_signal(int signal_number) {
  if (!reaped_) kill(pid_, signal_number);
}

WeftrunResult WeftrunProcess::finish(std::chrono::milliseconds within) {
  auto deadline = Clock::now() + within;
  while (pump(deadline)) {
  }
  WeftrunResult result;
  if (out_fd_ >= 0 || err_fd_ >= 0) {
    result.hung = true;
    kill_and_reap();
  } else if (!reaped_) {
    // Output closed: weftrun is exiting; give it the rest of the deadline.
    while (!reaped_) {
      if (waitpid(pid_, &wait_status_, WNOHANG) == pid_) {
        reaped_ = true;
      } else if (Clock::now() >= deadline) {
        result.hung = true;
        kill_and_reap();
      } else {
        usleep(10 * 1000);
      }
    }
  }
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
  if (WIFEXITED(wait_status_)) result.exit_code = WEXITSTATUS(wait_status_);
  if (WIFSIGNALED(wait_status_)) result.exit_code = 128 + WTERMSIG(wait_status_);
  result.out = out_;
  result.err = err_;
  return result;
}

WeftrunResult run_weftrun(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_environment,
                          std::chrono::milliseconds within) {
  WeftrunProcess process(args, extra_environment);
  return process.finish(within);
}

}  // namespace weft::weftrun::testing

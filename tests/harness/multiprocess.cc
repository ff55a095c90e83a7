#include "tests/harness/multiprocess.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "base/socket.h"
#include "rendezvous/tcp_store_server.h"
#include "transport/shm/segment.h"

namespace weft::testing {
namespace {

constexpr const char* kChildRankVar = "WEFT_TEST_CHILD_RANK";

std::string current_test_filter() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// A free port for rank 0 to bind (only when the test asks rank 0 to host the store).
uint16_t free_port() {
  base::Fd fd = base::listen_on(base::resolve("127.0.0.1", 0).front(), 1);
  return base::local_address(fd.get()).port();
}

// The test binary's own path; a wrapper command cannot be handed /proc/self/exe.
std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "/proc/self/exe";
}

struct Child {
  pid_t pid = -1;
  int out = -1;
  bool exited = false;
  std::string pending_line;
};

}  // namespace

bool is_rank_process() { return std::getenv(kChildRankVar) != nullptr; }

std::vector<RankResult> run_ranks(int world_size, const std::function<void(int rank)>& body,
                                  const RunOptions& options) {
  if (const char* child = std::getenv(kChildRankVar)) {
    int rank = std::atoi(child);
    int status = 0;
    try {
      body(rank);
      status = ::testing::Test::HasFailure() ? 1 : 0;
    } catch (const std::exception& e) {
      std::cerr << "rank " << rank << ": uncaught exception: " << e.what() << std::endl;
      status = 2;
    }
    std::cout.flush();
    std::cerr.flush();
    fflush(nullptr);
    _exit(status);
  }

  std::unique_ptr<rendezvous::TcpStoreServer> store;
  uint16_t port;
  if (options.launcher_store) {
    store = std::make_unique<rendezvous::TcpStoreServer>(base::resolve("127.0.0.1", 0).front());
    port = store->port();
  } else {
    port = free_port();
  }

  std::string filter = "--gtest_filter=" + current_test_filter();
  std::vector<Child> children(world_size);
  for (int rank = 0; rank < world_size; ++rank) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe2: " << std::strerror(errno);
    std::map<std::string, std::string> env = {
        {"MASTER_ADDR", "127.0.0.1"},
        {"MASTER_PORT", std::to_string(port)},
        {"WORLD_SIZE", std::to_string(world_size)},
        {"RANK", std::to_string(rank)},
        {kChildRankVar, std::to_string(rank)},
        {"WEFT_LAUNCHER_STORE", options.launcher_store ? "1" : "0"},
        // The parent writes the test report; a child must not overwrite it.
        {"XML_OUTPUT_FILE", ""},
        {"GTEST_OUTPUT", ""},
        // A sharded test's children run the one test they are told to, whatever shard
        // the parent is.
        {"GTEST_SHARD_INDEX", ""},
        {"GTEST_TOTAL_SHARDS", ""},
        {"GTEST_SHARD_STATUS_FILE", ""},
        {"TEST_SHARD_INDEX", ""},
        {"TEST_TOTAL_SHARDS", ""},
        {"TEST_SHARD_STATUS_FILE", ""},
    };
    for (const auto& [k, v] : options.env) env[k] = v;
    if (options.rank_env) {
      for (const auto& [k, v] : options.rank_env(rank)) env[k] = v;
    }
    // Everything the child needs is built before fork(): between fork and exec only
    // async-signal-safe calls are allowed, since the parent runs other threads.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string entry = *e;
      if (!env.count(entry.substr(0, entry.find('=')))) env_strings.push_back(entry);
    }
    for (const auto& [k, v] : env) {
      if (!v.empty()) env_strings.push_back(k + "=" + v);  // empty: leave it unset
    }
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args;
    if (options.wrapper) {
      args = options.wrapper(rank);
    } else if (rank % 2 == 1 && std::getenv("WEFT_TEST_ODD_RANKS_OWN_IPC")) {
      // Odd ranks in IPC namespaces of their own, as in separate containers: shared
      // memory reaches only the even ranks from each other, TCP the rest (mixed runs).
      args = {"unshare", "--ipc"};
    }
    args.insert(args.end(), {self_path(), filter, "--gtest_brief=1"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(pipe_fds[1], STDOUT_FILENO);
      dup2(pipe_fds[1], STDERR_FILENO);
      execvpe(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(pipe_fds[1]);
    children[rank].pid = pid;
    children[rank].out = pipe_fds[0];
  }

  std::vector<RankResult> results(world_size);
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool timed_out = false;
  int open_pipes = world_size;
  while (open_pipes > 0) {
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    for (int r = 0; r < world_size; ++r) {
      if (children[r].out >= 0) {
        fds.push_back({children[r].out, POLLIN, 0});
        ranks.push_back(r);
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int n = poll(fds.data(), fds.size(), static_cast<int>(std::min<long>(left.count(), 1000)));
    if (n <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int r = ranks[i];
      char buf[4096];
      ssize_t got = read(children[r].out, buf, sizeof buf);
      if (got <= 0) {
        close(children[r].out);
        children[r].out = -1;
        --open_pipes;
        if (!children[r].pending_line.empty()) {
          std::cerr << "[rank " << r << "] " << children[r].pending_line << "\n";
        }
        continue;
      }
      results[r].output.append(buf, static_cast<size_t>(got));
      children[r].pending_line.append(buf, static_cast<size_t>(got));
      size_t nl;
      while ((nl = children[r].pending_line.find('\n')) != std::string::npos) {
        std::cerr << "[rank " << r << "] " << children[r].pending_line.substr(0, nl + 1);
        children[r].pending_line.erase(0, nl + 1);
      }
    }
  }
  if (timed_out) {
    for (auto& c : children) kill(c.pid, SIGKILL);
  }
  for (int r = 0; r < world_size; ++r) {
    if (children[r].out >= 0) close(children[r].out);
    int status = 0;
    waitpid(children[r].pid, &status, 0);
    transport::shm::remove_segments_created_by(children[r].pid);  // a killed rank's leftovers
    results[r].rank = r;
    if (WIFEXITED(status)) results[r].exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) results[r].signal = WTERMSIG(status);
  }
  if (timed_out) {
    ADD_FAILURE() << "the ranks did not finish within " << options.timeout.count()
                  << " s and were killed";
  }
  return results;
}

void expect_all_succeeded(const std::vector<RankResult>& results) {
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 0) << "rank " << r.rank
                              << (r.signal ? " was killed by signal " + std::to_string(r.signal)
                                           : " failed")
                              << "; its output:\n"
                              << r.output;
  }
}

}  // namespace weft::testing

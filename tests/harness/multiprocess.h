// Multi-process tests: run_ranks() re-executes the current test binary once per rank,
// filtered to the current test, with the environment of a weft job (a store hosted by
// this parent process, as weftrun hosts one). In each child it runs `body(rank)` and
// exits: 0 when no expectation failed, 1 otherwise, 2 on an uncaught exception, whose
// message is printed. In the parent it returns how each rank ended, with its output.
//
// Use one run_ranks() per TEST, and assert on its results after it returns:
//
//   TEST(P2P, PingPong) {
//     auto ranks = run_ranks(2, [](int rank) { ... EXPECT_EQ(...) ... });
//     expect_all_succeeded(ranks);
//   }
//
// With WEFT_TEST_ODD_RANKS_OWN_IPC set (and no wrapper), odd ranks run under
// `unshare --ipc`, so that one job mixes shared-memory and TCP links.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace weft::testing {

struct RankResult {
  int rank = 0;
  int exit_code = -1;  // -1 when it was killed by a signal
  int signal = 0;
  std::string output;  // stdout and stderr, interleaved as written
};

struct RunOptions {
  std::chrono::seconds timeout{90};  // the parent kills every rank after this
  // Extra environment for every rank, and per rank.
  std::map<std::string, std::string> env;
  std::function<std::map<std::string, std::string>(int rank)> rank_env;
  // true: this process hosts the store (WEFT_LAUNCHER_STORE=1); false: rank 0 hosts it
  // on a free port, as with plain env://.
  bool launcher_store = true;
  // A command that runs each rank, e.g. {"ip", "netns", "exec", "ns1"}; empty: none.
  std::function<std::vector<std::string>(int rank)> wrapper;
};

std::vector<RankResult> run_ranks(int world_size, const std::function<void(int rank)>& body,
                                  const RunOptions& options = {});

// EXPECTs that every rank exited with status 0, showing the output of those that did not.
void expect_all_succeeded(const std::vector<RankResult>& results);

// True in a child process started by run_ranks.
bool is_rank_process();

}  // namespace weft::testing

// init_process_group with file:///path: automatic and explicit ranks, several groups in
// one file, duplicates, and files left behind by killed jobs, which are reported and
// never joined. Every test checks that a finished job removes its file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "tests/harness/multiprocess.h"
#include "tests/runtime/init_checks.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::expect_init_error;
using weft::testing::expect_one_job_or_none;
using weft::testing::rank_bits;
using weft::testing::ring_check;
using weft::testing::run_ranks;
using namespace std::chrono_literals;

// One path per test, the same in the parent and in its rank processes.
std::string rendezvous_file() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".rendezvous";
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(FileInit, FourProcessesWithoutRanksGetDistinctOnesAndTheFileIsRemoved) {
  const std::string path = rendezvous_file();
  auto ranks = run_ranks(4, [&](int) {
    unsetenv("RANK");  // no rank anywhere: automatic
    weft::init_process_group("auto", "file://" + path, 4);
    EXPECT_EQ(weft::get_world_size(), 4);
    EXPECT_EQ(rank_bits(), 15);
    ring_check(weft::get_rank(), 4);
    weft::destroy_process_group();
  });
  expect_all_succeeded(ranks);
  EXPECT_FALSE(exists(path));
}

TEST(FileInit, TwoJobsShareOnePathThroughTheirGroupNames) {
  const std::string path = rendezvous_file();
  auto ranks = run_ranks(4, [&](int launched) {
    // Launched ranks 0 and 1 form job "a", 2 and 3 job "b", with explicit ranks.
    std::string group = launched < 2 ? "a" : "b";
    weft::init_process_group("auto", "file://" + path, 2, launched % 2, group);
    EXPECT_EQ(weft::get_rank(), launched % 2);
    EXPECT_EQ(rank_bits(), 3);
    int32_t job = launched < 2 ? 1 : 10;  // each job sums only its own members
    weft::all_reduce(weft::view(std::span(&job, 1)));
    EXPECT_EQ(job, launched < 2 ? 2 : 20);
    weft::destroy_process_group();
  });
  expect_all_succeeded(ranks);
  EXPECT_FALSE(exists(path));
}

TEST(FileInit, ARankGivenTwiceIsRefusedOnBothProcesses) {
  const std::string path = rendezvous_file();
  auto ranks = run_ranks(2, [&](int) {
    expect_init_error<weft::InvalidArgument>(
        [&] { weft::init_process_group("auto", "file://" + path, 2, 0, "", 20s); },
        {"rank 0 was claimed twice"});
  });
  expect_all_succeeded(ranks);
  EXPECT_FALSE(exists(path));
}

TEST(FileInit, MoreProcessesThanWorldSizeAreRefused) {
  const std::string path = rendezvous_file();
  // Each process leaves a mark once its attempt is over. The job that assembles waits for
  // all three before it ends (and removes the file), so a third process that is merely
  // slow still meets it, instead of starting a job of its own on a fresh file.
  auto mark = [&](int launched) { return path + ".tried." + std::to_string(launched); };
  auto ranks = run_ranks(3, [&](int launched) {
    unsetenv("RANK");
    try {
      weft::init_process_group("auto", "file://" + path, 2, -1, "", 20s);
      EXPECT_EQ(rank_bits(), 3);
      std::ofstream(mark(launched)).put('1');
      auto deadline = std::chrono::steady_clock::now() + 20s;
      while (!(exists(mark(0)) && exists(mark(1)) && exists(mark(2))) &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
      }
      weft::destroy_process_group();
      std::cout << "assembled" << std::endl;
    } catch (const weft::InvalidArgument& e) {
      std::ofstream(mark(launched)).put('1');
      // Late, the third finds the job assembled; early, all three see its abort.
      std::string what = e.what();
      EXPECT_TRUE(what.find("ranks taken") != std::string::npos ||
                  what.find("already assembled a job of 2 ranks") != std::string::npos)
          << what;
      std::cout << "refused" << std::endl;
    }
  });
  expect_all_succeeded(ranks);
  expect_one_job_or_none(ranks, 2);
  EXPECT_FALSE(exists(path));
  for (int launched = 0; launched < 3; ++launched) unlink(mark(launched).c_str());
}

TEST(FileInit, AFileLeftByAKilledJobIsReportedNotJoined) {
  const std::string path = rendezvous_file();
  // A job of two assembles and is killed before it can clean up.
  std::vector<pid_t> killed;
  for (int rank = 0; rank < 2; ++rank) {
    pid_t child = fork();
    if (child == 0) {
      weft::init_process_group("auto", "file://" + path, 2, rank, "", 20s);
      weft::barrier();
      kill(getpid(), SIGKILL);
    }
    killed.push_back(child);
  }
  for (pid_t child : killed) {
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "a rank of the job to be killed failed before that";
  }
  ASSERT_TRUE(exists(path));
  // The next job on that path is told what it found and what to do, without waiting.
  auto started = std::chrono::steady_clock::now();
  expect_init_error<weft::InvalidArgument>(
      [&] { weft::init_process_group("auto", "file://" + path, 2, 0, "", 20s); },
      {path, "already assembled a job of 2 ranks", "is gone", "remove it"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_TRUE(exists(path));  // still the user's to remove
  unlink(path.c_str());
}

TEST(FileInit, BadFileUrlsAreRefused) {
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "file://relative/path", 2, 0); }, {"absolute path"});
  unsetenv("WORLD_SIZE");
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "file:///tmp/x", -1, 0); }, {"needs world_size"});
}

}  // namespace

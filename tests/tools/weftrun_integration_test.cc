// Runs the real weftrun binary on the helper ranks in this directory.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "base/socket.h"
#include "tests/tools/weftrun_process.h"
#include "tools/weftrun/cpu_binding.h"

namespace weft::weftrun::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string describe(const WeftrunResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.hung ? " (hung)" : "") + "\n--- stdout\n" +
         r.out + "--- stderr\n" + r.err;
}

TEST(WeftrunIntegration, GivesEveryRankItsPlaceAndAStore) {
  WeftrunResult r = run_weftrun({"-n", "3", kPrintRankEnv});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::regex line(R"(\[(\d)\] rank=(\d) world=3 local_rank=(\d) local_world=3 )"
                  R"(master_addr=127\.0\.0\.1 master_port=(\d+) launcher_store=1\n)");
  std::set<std::string> ports;
  std::set<int> ranks;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), line), end; it != end; ++it) {
    const std::smatch& m = *it;
    EXPECT_EQ(m[1], m[2]);
    EXPECT_EQ(m[2], m[3]);
    ranks.insert(std::stoi(m[1]));
    ports.insert(m[4]);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2})) << describe(r);
  ASSERT_EQ(ports.size(), 1u) << "ranks disagree on MASTER_PORT\n" << describe(r);
  EXPECT_GT(std::stoi(*ports.begin()), 0);
  for (int rank = 0; rank < 3; ++rank) {
    std::string p = "[" + std::to_string(rank) + "] ";
    std::string n = std::to_string(rank);
    EXPECT_TRUE(contains(r.out, p + "first of two lines from rank " + n + "\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, p + "second of two lines from rank " + n + "\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, p + "store ok: saw 3 ranks\n")) << describe(r);
    EXPECT_TRUE(contains(r.err, p + "a line on stderr from rank " + n + "\n")) << describe(r);
    EXPECT_FALSE(contains(r.out, "a line on stderr")) << "stderr leaked into stdout";
  }
}

TEST(WeftrunIntegration, PrintsWeftsVersion) {
  WeftrunResult r = run_weftrun({"--version"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(std::regex_match(r.out, std::regex(R"(weftrun \(weft\) \d+\.\d+\.\d+\n)")))
      << describe(r);
}

// --pass-local-rank: each rank's arguments end with --local_rank=N, the original
// launcher's way; print_rank_env shows its arguments as "env ARG ..." lines, in order.
// --use_env is accepted and changes nothing.
TEST(WeftrunIntegration, PassesTheLocalRankAsAnArgumentWhenAsked) {
  WeftrunResult r =
      run_weftrun({"-n", "2", "--use_env", "--pass-local-rank", kPrintRankEnv, "RANK"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank = 0; rank < 2; ++rank) {
    std::string p = "[" + std::to_string(rank) + "] ";
    EXPECT_TRUE(contains(r.out, p + "env RANK=" + std::to_string(rank) + "\n" + p +
                                    "env --local_rank=" + std::to_string(rank) + " unset\n"))
        << describe(r);
  }
  WeftrunResult plain = run_weftrun({"-n", "1", "--use_env", kPrintRankEnv, "RANK"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_FALSE(contains(plain.out, "--local_rank")) << describe(plain);
}

// Node 0 cannot host the store on a port another process holds, and says so.
TEST(WeftrunIntegration, AMasterPortInUseIsReportedAsSuch) {
  weft::base::Fd held = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 4);
  const std::string port = std::to_string(weft::base::local_address(held.get()).port());
  WeftrunResult r =
      run_weftrun({"--nnodes", "2", "--node-rank", "0", "--nproc-per-node", "1", "--master-addr",
                   "127.0.0.1", "--master-port", port, kPrintRankEnv});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "port " + port +
                                  " is in use by another job or server on this host; choose "
                                  "another --master-port"))
      << describe(r);
}

TEST(WeftrunIntegration, RunsAWeftJobOverTheStoreItHosts) {
  WeftrunResult r = run_weftrun({"-n", "4", "--timeout", "30", kRingPass});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank = 0; rank < 4; ++rank) {
    std::string n = std::to_string(rank);
    std::string left = std::to_string((rank + 3) % 4);
    EXPECT_TRUE(contains(
        r.out, "[" + n + "] rank " + n + " of 4 received " + left + " from rank " + left + "\n"))
        << describe(r);
  }
}

// weftrun shows each line's rank in front of it; weft's log lines do not show it again.
TEST(WeftrunIntegration, ShowsTheRankOfALogLineOnce) {
  WeftrunResult r = run_weftrun({"-n", "2", "--timeout", "30", kRingPass}, {"WEFT_DEBUG=INFO"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* rank : {"0", "1"}) {
    EXPECT_TRUE(std::regex_search(
        r.err, std::regex(std::string(R"((^|\n)\[)") + rank + R"(\] \S+:\d+ weft INFO )")))
        << describe(r);
  }
  EXPECT_FALSE(std::regex_search(r.err, std::regex(R"(\[\d\] \S+:\d+ \[\d\] weft )")))
      << describe(r);
  // Without weftrun's prefix, the line shows its rank itself.
  WeftrunResult bare =
      run_weftrun({"-n", "2", "--no-prefix", "--timeout", "30", kRingPass}, {"WEFT_DEBUG=INFO"});
  ASSERT_EQ(bare.exit_code, 0) << describe(bare);
  EXPECT_TRUE(std::regex_search(bare.err, std::regex(R"((^|\n)\S+:\d+ \[1\] weft INFO )")))
      << describe(bare);
}

TEST(WeftrunIntegration, ShowsThePeersOwnErrorsAfterARankDies) {
  WeftrunResult r = run_weftrun({"-n", "4", "--grace", "10", kRingPass, "kill", "2"});
  EXPECT_EQ(r.exit_code, 137) << describe(r);
  // Rank 3 waits on rank 2, notices it is gone and says so itself, within the grace period.
  EXPECT_TRUE(contains(r.err, "[3] ring_pass: ")) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 2 \(pid \d+\) was killed by )"
                                                  R"(signal 9 \(Killed\) first; [12] other )"
                                                  R"(rank\(s\) failed after it\n)")))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(10)) << "every rank exited by itself; weftrun must not wait";
}

// Rank 2 stops itself (SIGSTOP) mid-job; the others time out after 3 s waiting for it
// and exit. weftrun must blame rank 2, not the first rank that timed out, and kill the
// stopped rank (SIGKILL reaches a stopped process).
void expect_stopped_rank_blamed(const std::vector<std::string>& environment) {
  WeftrunResult r =
      run_weftrun({"-n", "4", "--grace", "1", kRingPass, "stop", "2"}, environment, seconds(50));
  EXPECT_FALSE(r.hung) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank [013] \(pid \d+\) exited )"
                                                  R"(with status 1 first; )")))
      << describe(r);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(weftrun: the job failed; its root cause: rank 2 \([^:)]+:\d+\) )"
                        R"(stopped responding: ranks? [0-9, and]+ timed out waiting for it\n)")))
      << describe(r);
  // The ranks' own errors say whom they waited for.
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\[[013]\] ring_pass: [^\n]*rank 2 \()")))
      << describe(r);
}

TEST(WeftrunIntegration, NamesARankThatStoppedRespondingAsTheRootCause) {
  // Collectives of one host run in the shared-memory arena.
  expect_stopped_rank_blamed({});
}

TEST(WeftrunIntegration, NamesARankThatStoppedRespondingOverTcp) {
  // Collectives over the engine: a rank may time out waiting for a rank that itself
  // timed out waiting for rank 2.
  expect_stopped_rank_blamed({"WEFT_TRANSPORTS=tcp"});
}

TEST(WeftrunIntegration, NoPrefixPassesLinesUnchanged) {
  WeftrunResult r = run_weftrun({"--no-prefix", "-n", "2", kPrintRankEnv});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(contains(r.out, "[")) << describe(r);
  EXPECT_FALSE(contains(r.err, "[")) << describe(r);
  for (const char* rank : {"0", "1"}) {
    std::string n = rank;
    EXPECT_TRUE(contains(r.out, "rank=" + n + " world=2 ")) << describe(r);
    EXPECT_TRUE(contains(r.out, "first of two lines from rank " + n + "\n")) << describe(r);
    EXPECT_TRUE(contains(r.err, "a line on stderr from rank " + n + "\n")) << describe(r);
  }
}

// Each rank's "cpus=" line, by rank.
std::map<int, std::string> cpus_by_rank(const std::string& out) {
  std::map<int, std::string> cpus;
  std::regex line(R"(\[(\d+)\] cpus=([0-9,]+)\n)");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    cpus[std::stoi((*it)[1])] = (*it)[2];
  }
  return cpus;
}

std::string comma_list(const std::vector<int>& cpus) {
  std::string out;
  for (int cpu : cpus) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

TEST(WeftrunIntegration, BindToCoreGivesEachRankTheCpusOfOneCore) {
  MachineLayout machine = read_machine_layout();
  WeftrunResult r = run_weftrun({"-n", "2", "--bind-to", "core", kPrintRankEnv});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::map<int, std::string> cpus = cpus_by_rank(r.out);
  ASSERT_EQ(cpus.size(), 2u) << describe(r);
  for (int rank = 0; rank < 2; ++rank) {
    // Rank i on core i, wrapping round on a machine with fewer cores than ranks.
    EXPECT_EQ(cpus[rank], comma_list(machine.cores[rank % machine.cores.size()])) << describe(r);
  }
  if (machine.cores.size() >= 2) {
    EXPECT_NE(cpus[0], cpus[1]) << describe(r);
  } else {
    EXPECT_TRUE(contains(r.err, "--bind-to: ")) << "sharing a core must be warned about";
  }
}

TEST(WeftrunIntegration, WithoutBindToRanksKeepWeftrunsCpus) {
  WeftrunResult r = run_weftrun({"-n", "2", kPrintRankEnv});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::string own = comma_list(calling_thread_cpus());
  std::map<int, std::string> cpus = cpus_by_rank(r.out);
  EXPECT_EQ(cpus, (std::map<int, std::string>{{0, own}, {1, own}})) << describe(r);
}

TEST(WeftrunIntegration, ExportsVariablesInBothForms) {
  WeftrunResult r =
      run_weftrun({"-n", "2", "-x", "WEFTRUN_TEST_FROM_ENV", "-x", "WEFTRUN_TEST_SET=given value",
                   "-x", "WEFTRUN_TEST_OVERRIDDEN=new", "-x", "WEFTRUN_TEST_MISSING", kPrintRankEnv,
                   "WEFTRUN_TEST_FROM_ENV", "WEFTRUN_TEST_SET", "WEFTRUN_TEST_OVERRIDDEN",
                   "WEFTRUN_TEST_MISSING"},
                  {"WEFTRUN_TEST_FROM_ENV=from weftrun", "WEFTRUN_TEST_OVERRIDDEN=old"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char* rank : {"[0] ", "[1] "}) {
    std::string p = rank;
    EXPECT_TRUE(contains(r.out, p + "env WEFTRUN_TEST_FROM_ENV=from weftrun\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, p + "env WEFTRUN_TEST_SET=given value\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, p + "env WEFTRUN_TEST_OVERRIDDEN=new\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, p + "env WEFTRUN_TEST_MISSING unset\n")) << describe(r);
  }
  EXPECT_TRUE(contains(r.err, "weftrun: -x WEFTRUN_TEST_MISSING: WEFTRUN_TEST_MISSING is not set"))
      << describe(r);
}

TEST(WeftrunIntegration, InheritedLauncherVariablesDoNotLeakIntoRanks) {
  WeftrunResult r = run_weftrun({"-n", "1", kPrintRankEnv},
                                {"RANK=5", "WORLD_SIZE=9", "MASTER_PORT=1", "LOCAL_RANK=3"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "[0] rank=0 world=1 local_rank=0 local_world=1 ")) << describe(r);
}

TEST(WeftrunIntegration, FlushesAPartialLastLineAtExit) {
  WeftrunResult r = run_weftrun({"-n", "2", kRankBehaviour, "partial"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "[0] no newline at end\n")) << describe(r);
  EXPECT_TRUE(contains(r.out, "[1] no newline at end\n")) << describe(r);

  WeftrunResult plain = run_weftrun({"--no-prefix", "-n", "2", kRankBehaviour, "partial"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_EQ(plain.out, "no newline at endno newline at end") << describe(plain);
}

TEST(WeftrunIntegration, ReportsAnExitCodeAsTheFirstFailure) {
  WeftrunResult r = run_weftrun({"-n", "4", "--grace", "0.2", kRankBehaviour, "exit", "2", "3"});
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 2 \(pid \d+\) exited with )"
                                                  R"(status 3 first; 3 other rank\(s\) were )"
                                                  R"(stopped\n)")))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(3)) << "the sleeping ranks should go at SIGTERM";
}

TEST(WeftrunIntegration, ReportsAKilledRankAndStopsTheOthersAfterTheGracePeriod) {
  WeftrunResult r = run_weftrun({"-n", "3", "--grace", "0.5", kRankBehaviour, "signal", "1", "9"});
  EXPECT_EQ(r.exit_code, 137) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 1 \(pid \d+\) was killed by )"
                                                  R"(signal 9 \(Killed\) first; 2 other )"
                                                  R"(rank\(s\) were stopped\n)")))
      << describe(r);
  EXPECT_GE(r.elapsed, milliseconds(500)) << "the others were not given their grace period";
  EXPECT_LT(r.elapsed, seconds(3)) << describe(r);
}

TEST(WeftrunIntegration, AKillRightAfterAPeersErrorIsTheFirstFailure) {
  WeftrunResult r =
      run_weftrun({"-n", "3", "--grace", "0.5", kRankBehaviour, "exit-then-kill", "0", "1", "2"});
  EXPECT_EQ(r.exit_code, 137) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 2 \(pid \d+\) was killed by )"
                                                  R"(signal 9 \(Killed\) first; 1 other rank\(s\) )"
                                                  R"(failed after it, 1 other rank\(s\) were )"
                                                  R"(stopped\n)")))
      << describe(r);
}

TEST(WeftrunIntegration, RanksThatExitDuringTheGracePeriodAreNotWaitedFor) {
  WeftrunResult r =
      run_weftrun({"-n", "3", "--grace", "10", kRankBehaviour, "exit-together", "0", "4"});
  EXPECT_EQ(r.exit_code, 4) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 0 \(pid \d+\) exited with )"
                                                  R"(status 4 first; 2 other rank\(s\) failed )"
                                                  R"(after it\n)")))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(5)) << describe(r);
}

TEST(WeftrunIntegration, ASingleFailingRank) {
  WeftrunResult r = run_weftrun({"-n", "1", kRankBehaviour, "exit", "0", "5"});
  EXPECT_EQ(r.exit_code, 5) << describe(r);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(weftrun: rank 0 \(pid \d+\) exited with )"
                                                  R"(status 5\n)")))
      << describe(r);
}

TEST(WeftrunIntegration, TimeoutStopsTheJobWithStatus124) {
  WeftrunResult r = run_weftrun({"-n", "2", "--timeout", "0.3", kRankBehaviour, "sleep", "30"});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_TRUE(contains(r.err, "weftrun: job timed out after 0.3 s; stopping 2 rank(s)\n"))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(3)) << describe(r);
}

TEST(WeftrunIntegration, RanksThatIgnoreSigtermAreKilled) {
  WeftrunResult r = run_weftrun({"-n", "2", "--timeout", "0.3", kRankBehaviour, "ignore-term"});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_GE(r.elapsed, seconds(3)) << "SIGKILL should come 3 s after SIGTERM";
  EXPECT_LT(r.elapsed, seconds(8)) << describe(r);
}

TEST(WeftrunIntegration, ForwardsSigtermToTheRanks) {
  WeftrunProcess weftrun({"-n", "3", "--grace", "5", kRankBehaviour, "trap-term"});
  ASSERT_TRUE(weftrun.wait_for_stdout("ready\n", 3, seconds(10)));
  weftrun.send_signal(SIGTERM);
  WeftrunResult r = weftrun.finish(seconds(10));
  EXPECT_FALSE(r.hung) << describe(r);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << describe(r);
  for (int rank = 0; rank < 3; ++rank) {
    std::string n = std::to_string(rank);
    EXPECT_TRUE(contains(r.out, "[" + n + "] rank " + n + " got SIGTERM\n")) << describe(r);
  }
  EXPECT_TRUE(contains(r.err,
                       "weftrun: received signal 15 (Terminated); forwarding it to 3 "
                       "rank(s)\n"))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(5)) << "the ranks exited at once; weftrun must not wait";
}

TEST(WeftrunIntegration, ASecondSigintKillsTheRanks) {
  WeftrunProcess weftrun({"-n", "2", "--grace", "30", kRankBehaviour, "ignore-int"});
  ASSERT_TRUE(weftrun.wait_for_stdout("ready\n", 2, seconds(10)));
  weftrun.send_signal(SIGINT);
  ASSERT_TRUE(weftrun.wait_for_stderr("weftrun: received signal 2", 1, seconds(10)));
  weftrun.send_signal(SIGINT);
  WeftrunResult r = weftrun.finish(seconds(10));
  EXPECT_FALSE(r.hung) << describe(r);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << describe(r);
  EXPECT_TRUE(contains(r.err, "weftrun: second SIGINT; killing 2 rank(s)\n")) << describe(r);
  EXPECT_LT(r.elapsed, seconds(8)) << describe(r);
}

TEST(WeftrunIntegration, ABrokenStdoutReachesTheRanks) {
  WeftrunProcess weftrun({"-n", "2", "--grace", "1", kRankBehaviour, "spam"});
  ASSERT_TRUE(weftrun.wait_for_stdout("] spam\n", 10, seconds(10)));
  weftrun.close_stdout();
  WeftrunResult r = weftrun.finish(seconds(10));
  EXPECT_FALSE(r.hung) << describe(r);
  EXPECT_EQ(r.exit_code, 128 + SIGPIPE) << describe(r);
  EXPECT_TRUE(contains(r.err, "was killed by signal 13 (Broken pipe) first")) << r.err;
}

TEST(WeftrunIntegration, ReportsAProgramThatCannotBeExecuted) {
  WeftrunResult r = run_weftrun({"-n", "2", "./no/such/program"});
  EXPECT_EQ(r.exit_code, 127) << describe(r);
  EXPECT_EQ(r.err, "weftrun: cannot execute './no/such/program': No such file or directory\n")
      << describe(r);

  WeftrunResult searched = run_weftrun({"-n", "2", "weftrun-test-no-such-program"});
  EXPECT_EQ(searched.exit_code, 127) << describe(searched);
  EXPECT_TRUE(contains(searched.err,
                       "weftrun: cannot execute 'weftrun-test-no-such-program': "
                       "No such file or directory\n"))
      << describe(searched);
}

TEST(WeftrunIntegration, FindsProgramsOnThePath) {
  WeftrunResult r = run_weftrun({"-n", "2", "true"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

TEST(WeftrunIntegration, UsageErrorsExitWithStatus2) {
  WeftrunResult none = run_weftrun({});
  EXPECT_EQ(none.exit_code, 2) << describe(none);
  EXPECT_TRUE(contains(none.err, "weftrun: missing the program to run\n")) << describe(none);

  WeftrunResult bogus = run_weftrun({"-n", "2", "--bogus", "true"});
  EXPECT_EQ(bogus.exit_code, 2) << describe(bogus);
  EXPECT_TRUE(contains(bogus.err, "weftrun: unknown option '--bogus'\n")) << describe(bogus);

  WeftrunResult too_many = run_weftrun({"-n", "5000", "true"});
  EXPECT_EQ(too_many.exit_code, 2) << describe(too_many);
  EXPECT_TRUE(contains(too_many.err, "-n 5000: ")) << describe(too_many);
}

TEST(WeftrunIntegration, HelpGoesToStdout) {
  WeftrunResult r = run_weftrun({"--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.rfind("usage: weftrun -n N", 0), 0u) << describe(r);
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace weft::weftrun::testing

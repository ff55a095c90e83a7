// weftrun across hosts: two "nodes" that are network namespaces on one bridge, each
// running its own weftrun (--nnodes 2 --node-rank K), or both started from one weftrun
// with -H through a launch agent. Ranks must be numbered across the nodes, and a failure
// on either node must end the job on both, each weftrun naming the same root cause.
// Needs root and iproute2; skipped, saying why, otherwise.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "tests/harness/bridged_hosts.h"
#include "tests/tools/weftrun_process.h"

namespace weft::weftrun::testing {
namespace {

using std::chrono::seconds;

const std::vector<std::string> kJobEnvironment = {"WEFT_AUTH_TOKEN=multinode-test-secret",
                                                  "WEFT_TIMEOUT=20"};

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string describe(const WeftrunResult& r) {
  return "exit " + std::to_string(r.exit_code) + (r.hung ? " (hung)" : "") + "\n--- stdout\n" +
         r.out + "--- stderr\n" + r.err;
}

class WeftrunMultiNode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    hosts_ = std::make_unique<weft::testing::BridgedHosts>("wr", 2, 79);
  }
  static void TearDownTestSuite() { hosts_.reset(); }
  void SetUp() override {
    if (!hosts_->failure().empty()) GTEST_SKIP() << hosts_->failure();
  }

  // The weftrun of node `node` of a 2-node job with `per_node` ranks on each.
  static std::unique_ptr<WeftrunProcess> start_node(int node, int port, int per_node,
                                                    std::vector<std::string> program,
                                                    std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--nnodes",         "2",
                                     "--node-rank",      std::to_string(node),
                                     "--nproc-per-node", std::to_string(per_node),
                                     "--master-addr",    hosts_->ipv4(0),
                                     "--master-port",    std::to_string(port),
                                     "--timeout",        "40"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), program.begin(), program.end());
    return std::make_unique<WeftrunProcess>(args, kJobEnvironment, hosts_->exec(node));
  }

  static inline std::unique_ptr<weft::testing::BridgedHosts> hosts_;
};

TEST_F(WeftrunMultiNode, NumbersRanksAcrossNodesAndRunsAWeftJob) {
  auto node0 = start_node(0, 29811, 2, {kRingPass});
  auto node1 = start_node(1, 29811, 2, {kRingPass});
  WeftrunResult r0 = node0->finish(seconds(60));
  WeftrunResult r1 = node1->finish(seconds(60));
  ASSERT_EQ(r0.exit_code, 0) << describe(r0) << describe(r1);
  ASSERT_EQ(r1.exit_code, 0) << describe(r1) << describe(r0);
  // Each node relays its own ranks' lines: 0 and 1 on node 0, 2 and 3 on node 1.
  for (int rank = 0; rank < 4; ++rank) {
    const WeftrunResult& mine = rank < 2 ? r0 : r1;
    const WeftrunResult& other = rank < 2 ? r1 : r0;
    std::string n = std::to_string(rank), left = std::to_string((rank + 3) % 4);
    std::string line = "[" + n + "] rank " + n + " of 4 received " + left + " from rank " + left;
    EXPECT_TRUE(contains(mine.out, line)) << describe(mine);
    EXPECT_FALSE(contains(other.out, "[" + n + "] ")) << describe(other);
  }
}

TEST_F(WeftrunMultiNode, TellsEachRankItsLocalPlaceInTorchrunsSpellings) {
  auto node0 = start_node(0, 29812, 2, {kPrintRankEnv, "GROUP_RANK"});
  std::vector<std::string> args = {"--nnodes=2",          "--node_rank=1",
                                   "--nproc_per_node=2",  "--master_addr=" + hosts_->ipv4(0),
                                   "--master_port=29812", kPrintRankEnv,
                                   "GROUP_RANK"};
  WeftrunProcess node1(args, kJobEnvironment, hosts_->exec(1));
  WeftrunResult r1 = node1.finish(seconds(60));
  WeftrunResult r0 = node0->finish(seconds(60));
  ASSERT_EQ(r0.exit_code, 0) << describe(r0) << describe(r1);
  ASSERT_EQ(r1.exit_code, 0) << describe(r1) << describe(r0);
  std::string master = "master_addr=" + hosts_->ipv4(0) + " master_port=29812";
  for (int rank = 0; rank < 4; ++rank) {
    const WeftrunResult& mine = rank < 2 ? r0 : r1;
    std::string p = "[" + std::to_string(rank) + "] ";
    EXPECT_TRUE(contains(mine.out, p + "rank=" + std::to_string(rank) + " world=4 local_rank=" +
                                       std::to_string(rank % 2) + " local_world=2 " + master))
        << describe(mine);
    EXPECT_TRUE(contains(mine.out, p + "env GROUP_RANK=" + std::to_string(rank / 2)))
        << describe(mine);
    EXPECT_TRUE(contains(mine.out, p + "store ok: saw 4 ranks")) << describe(mine);
  }
}

TEST_F(WeftrunMultiNode, AFailureOnOneNodeStopsTheOtherWithTheSameRootCause) {
  // Rank 0 on node 0 exits 3; every other rank would sleep for 30 s.
  auto node0 = start_node(0, 29813, 2, {kRankBehaviour, "exit", "0", "3"}, {"--grace", "1"});
  auto node1 = start_node(1, 29813, 2, {kRankBehaviour, "exit", "0", "3"}, {"--grace", "1"});
  WeftrunResult r0 = node0->finish(seconds(60));
  WeftrunResult r1 = node1->finish(seconds(60));
  EXPECT_EQ(r0.exit_code, 3) << describe(r0);
  EXPECT_EQ(r1.exit_code, 3) << describe(r1);
  std::regex cause(R"(weftrun: the job failed; its root cause: node 0 \([^)]+\): rank 0 \(pid )"
                   R"(\d+\) exited with status 3\n)");
  EXPECT_TRUE(std::regex_search(r0.err, cause)) << describe(r0);
  EXPECT_TRUE(std::regex_search(r1.err, cause)) << describe(r1);
  EXPECT_TRUE(contains(r1.err, "weftrun: node 1: stopping 2 rank(s): node 0 (")) << describe(r1);
  EXPECT_LT(r1.elapsed, seconds(20)) << "node 1's ranks must not sleep out their 30 s";
}

TEST_F(WeftrunMultiNode, ARankThatStoppedRespondingIsTheRootCauseOnEveryNode) {
  // Rank 2 (node 1) stops itself (SIGSTOP) mid-job; the others time out waiting for it
  // after 3 s, the first of them on either node.
  std::vector<std::string> program = {kRingPass, "stop", "2"};
  auto node0 = start_node(0, 29820, 2, program, {"--grace", "1"});
  auto node1 = start_node(1, 29820, 2, program, {"--grace", "1"});
  WeftrunResult r0 = node0->finish(seconds(60));
  WeftrunResult r1 = node1->finish(seconds(60));
  std::regex cause(R"(weftrun: the job failed; its root cause: rank 2 \([^:)]+:\d+\) stopped )"
                   R"(responding: ranks? [0-9, and]+ timed out waiting for it \(first failure: )"
                   R"(node [01] \([^)]+\): rank [013] \(pid \d+\) exited with status 1\)\n)");
  EXPECT_TRUE(std::regex_search(r0.err, cause)) << describe(r0);
  EXPECT_TRUE(std::regex_search(r1.err, cause)) << describe(r1);
  EXPECT_EQ(r0.exit_code, 1) << describe(r0);
  EXPECT_EQ(r1.exit_code, 1) << describe(r1);
}

TEST_F(WeftrunMultiNode, AKilledRankIsTheRootCauseEvenWhenAPeerFailedFirst) {
  // Rank 0 (node 0) exits 1, then rank 3 (node 1) is killed 50 ms later: a peer that
  // reported a lost connection before the killed rank's death reached its weftrun.
  std::vector<std::string> program = {kRankBehaviour, "exit-then-kill", "0", "1", "3"};
  auto node0 = start_node(0, 29814, 2, program, {"--grace", "1"});
  auto node1 = start_node(1, 29814, 2, program, {"--grace", "1"});
  WeftrunResult r0 = node0->finish(seconds(60));
  WeftrunResult r1 = node1->finish(seconds(60));
  std::regex cause(R"(its root cause: node 1 \([^)]+\): rank 3 \(pid \d+\) was killed by signal )"
                   R"(9 \(Killed\)\n)");
  EXPECT_TRUE(std::regex_search(r0.err, cause)) << describe(r0);
  EXPECT_TRUE(std::regex_search(r1.err, cause)) << describe(r1);
  EXPECT_EQ(r0.exit_code, 137) << describe(r0);
  EXPECT_EQ(r1.exit_code, 137) << describe(r1);
}

TEST_F(WeftrunMultiNode, ANodeWithoutNodeZeroSaysItCannotReachTheStore) {
  WeftrunProcess node1({"--nnodes", "2", "--node-rank", "1", "--nproc-per-node", "1",
                        "--master-addr", hosts_->ipv4(0), "--master-port", "29815", kRingPass},
                       {"WEFT_TIMEOUT=2"}, hosts_->exec(1));
  WeftrunResult r = node1.finish(seconds(30));
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "weftrun: node 1: cannot reach the job's store on node 0 at " +
                                  hosts_->ipv4(0) + ":29815"))
      << describe(r);
}

TEST_F(WeftrunMultiNode, OneWeftrunStartsEveryNodeThroughTheLaunchAgent) {
  std::string hosts = hosts_->name(0) + ":2," + hosts_->name(1) + ":1";
  WeftrunResult r =
      run_weftrun({"-H", hosts, "--launch-agent", "tests/tools/netns_agent.sh", "--master-addr",
                   hosts_->ipv4(0), "--master-port", "29816", "--timeout", "40", kRingPass},
                  {"WEFT_TIMEOUT=20"}, seconds(60));
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank = 0; rank < 3; ++rank) {
    std::string n = std::to_string(rank), left = std::to_string((rank + 2) % 3);
    EXPECT_TRUE(
        contains(r.out, "[" + n + "] rank " + n + " of 3 received " + left + " from rank " + left))
        << describe(r);
  }
}

TEST_F(WeftrunMultiNode, AFailedNodeStartedThroughTheAgentFailsTheWholeJob) {
  std::string hosts = hosts_->name(0) + ":1," + hosts_->name(1) + ":1";
  WeftrunResult r = run_weftrun(
      {"-H", hosts, "--launch-agent", "tests/tools/netns_agent.sh", "--master-addr",
       hosts_->ipv4(0), "--master-port", "29817", "--grace", "1", kRankBehaviour, "exit", "1", "5"},
      {"WEFT_TIMEOUT=20"}, seconds(60));
  EXPECT_EQ(r.exit_code, 5) << describe(r);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(its root cause: node 1 \([^)]+\): rank 1 \(pid \d+\) exited with )"
                        R"(status 5\n)")))
      << describe(r);
  EXPECT_LT(r.elapsed, seconds(20)) << describe(r);
}

}  // namespace
}  // namespace weft::weftrun::testing

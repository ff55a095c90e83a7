// The hierarchical collectives between processes on two "hosts": network namespaces of
// this machine joined by a bridge (tests/harness/bridged_hosts.h), two ranks on each.
// The namespaces share memory, so the arena is turned off (WEFT_SHM_ARENA_BYTES=0) for
// the host layout to decide; each test runs over the default transports (shared memory
// between any two ranks here) and over TCP alone. Needs root and iproute2; skipped,
// saying why, otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/collectives/collective_checks.h"
#include "tests/harness/bridged_hosts.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

class TwoHostsOfTwo : public ::testing::TestWithParam<const char*> {
 protected:
  static constexpr int kSubnet = 81;

  static void SetUpTestSuite() {
    if (is_rank_process()) return;  // the parent built the hosts
    if (geteuid() != 0) {
      skip_reason_ = "needs root to create network namespaces";
      return;
    }
    hosts_ = std::make_unique<BridgedHosts>("hh", 2, kSubnet);
    skip_reason_ = hosts_->failure();
  }
  static void TearDownTestSuite() { hosts_.reset(); }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }

  // Ranks 0 and 1 on the first host, 2 and 3 on the second; with `interleaved`, even
  // ranks on the first.
  // (Rank processes run the test body too, without the hosts: the options are the
  // parent's business there, and the wrapper is only called by the parent.)
  static RunOptions on_two_hosts(bool interleaved = false) {
    RunOptions o;
    o.launcher_store = false;
    o.env["MASTER_ADDR"] = "10." + std::to_string(kSubnet) + ".0.1";  // the first host's
    o.env["WEFT_SHM_ARENA_BYTES"] = "0";
    o.env["WEFT_TRANSPORTS"] = GetParam();
    o.env["WEFT_DEBUG"] = "INFO";
    o.wrapper = [interleaved](int rank) { return hosts_->exec(interleaved ? rank % 2 : rank / 2); };
    return o;
  }

  static inline std::unique_ptr<BridgedHosts> hosts_;
  static inline std::string skip_reason_;
};

void expect_chose(const std::vector<RankResult>& ranks, const std::string& line) {
  for (const RankResult& r : ranks) {
    EXPECT_NE(r.output.find(line), std::string::npos) << "no '" << line << "' in\n" << r.output;
  }
}

TEST_P(TwoHostsOfTwo, EveryCollectiveIsRightAndAllReduceAndBroadcastGoHierarchical) {
  auto ranks = run_ranks(
      4,
      [](int) {
        init_process_group();
        check_all_collectives(Group(), {.dtypes = {DType::kFloat32, DType::kInt64},
                                        .ops = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kAvg},
                                        .counts = {0, 1, 7, 1023, 300000},
                                        .variable_forms = false});
        std::vector<float> big(1 << 20, 1.0f);
        all_reduce(view(big));
        expect_identical_everywhere(Group(), view(big));
        EXPECT_EQ(big[12345], 4.0f);
        destroy_process_group();
      },
      on_two_hosts());
  expect_all_succeeded(ranks);
  expect_chose(ranks, "algorithm hierarchical_sliced");
  expect_chose(ranks, "all_reduce (rank");
  expect_chose(ranks, "broadcast (rank");
  for (const RankResult& r : ranks) {
    EXPECT_NE(r.output.find("): algorithm hierarchical"), std::string::npos) << r.output;
  }
}

TEST_P(TwoHostsOfTwo, InterleavedRanksAndASubgroupAcrossHosts) {
  auto ranks = run_ranks(
      4,
      [](int rank) {
        init_process_group();
        // Hosts {0, 2} and {1, 3}; the subgroup has one rank on the first, two on the other.
        check_all_collectives(Group(), {.dtypes = {DType::kInt32},
                                        .ops = {ReduceOp::kSum, ReduceOp::kMin},
                                        .counts = {1, 1000, 100000},
                                        .variable_forms = false});
        Group three = new_group({0, 1, 3});
        if (rank != 2) {
          std::vector<int64_t> v(70000, rank);
          all_reduce(view(v), ReduceOp::kSum, three);
          EXPECT_EQ(v[69999], 0 + 1 + 3);
          std::vector<int32_t> b(5000, rank == 3 ? 7 : -1);
          broadcast(view(b), 3, three);
          EXPECT_EQ(b[4999], 7);
        }
        destroy_process_group();
      },
      on_two_hosts(true));
  expect_all_succeeded(ranks);
  expect_chose(ranks, "algorithm hierarchical");
}

INSTANTIATE_TEST_SUITE_P(Transports, TwoHostsOfTwo, ::testing::Values("shm,tcp", "tcp"),
                         [](const auto& info) {
                           return std::string(info.param == std::string("tcp") ? "tcp"
                                                                               : "shm_and_tcp");
                         });

}  // namespace
}  // namespace weft::testing

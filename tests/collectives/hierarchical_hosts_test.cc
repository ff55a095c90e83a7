// The hierarchical collectives between processes on two "hosts": network namespaces of
// this machine joined by a bridge (tests/harness/bridged_hosts.h), two ranks on each.
// The namespaces share memory, so the arena is turned off (WEFT_SHM_ARENA_BYTES=0) for
// the host layout to decide; each test runs over the default transports (shared memory
// between any two ranks here) and over TCP alone. Needs root and iproute2; skipped,
// saying why, otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
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

// Every rank logged that `op` ran `algorithm` ("reduce_scatter (rank 1 of group world,
// ...): algorithm hierarchical").
void expect_ran(const std::vector<RankResult>& ranks, const std::string& op,
                const std::string& algorithm) {
  for (const RankResult& r : ranks) {
    bool found = false;
    size_t at = 0;
    while (!found && at < r.output.size()) {
      size_t end = r.output.find('\n', at);
      if (end == std::string::npos) end = r.output.size();
      const std::string line = r.output.substr(at, end - at);
      const size_t call = line.find(" " + op + " (rank");
      const size_t chose = line.find("): algorithm " + algorithm);
      found = call != std::string::npos && chose != std::string::npos && call < chose &&
              (line.size() == chose + 13 + algorithm.size() ||
               line[chose + 13 + algorithm.size()] == ' ');
      at = end + 1;
    }
    EXPECT_TRUE(found) << "no '" << op << "' by algorithm " << algorithm << " in\n" << r.output;
  }
}

TEST_P(TwoHostsOfTwo, EveryCollectiveIsRightAndTheSixWithHierarchicalFormsUseThem) {
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
  expect_ran(ranks, "all_reduce", "hierarchical_sliced");
  for (const char* op :
       {"all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "barrier"}) {
    expect_ran(ranks, op, "hierarchical");
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
  for (const char* op : {"all_reduce", "reduce_scatter", "barrier"}) {
    expect_ran(ranks, op, "hierarchical");
  }
}

// A link that stalls: the second host's port is taken out of the bridge, so that what
// it sends and what is sent to it is lost (the connections stay up, as over a network
// that drops everything for a while). A stall shorter than the timeout only delays the
// all_reduce; one that outlasts it is a TimeoutError, within the timeout, naming the
// rank across the link that the leader was waiting for.
TEST_P(TwoHostsOfTwo, AStalledLinkDelaysACallOrTimesItOutNamingTheRankAcrossIt) {
  if (GetParam() != std::string("tcp")) {
    GTEST_SKIP() << "the namespaces share memory, so shared-memory links do not cross the "
                    "bridge; only the TCP instance can stall";
  }
  RunOptions options = on_two_hosts();
  if (hosts_) {
    options.env["WEFT_TEST_CUT"] = hosts_->cut_command(1);
    options.env["WEFT_TEST_MEND"] = hosts_->mend_command(1);
  }
  auto ranks = run_ranks(
      4,
      [](int rank) {
        auto shell = [](const char* name) {
          const char* command = std::getenv(name);
          ASSERT_NE(command, nullptr) << name;
          ASSERT_EQ(std::system(command), 0) << command;
        };
        init_process_group();
        std::vector<float> v(1000, 1.0f);
        all_reduce(view(v));  // every link in use
        EXPECT_EQ(v[999], 4.0f);

        // Rank 2 cuts its host off for 1.5 s, and is the last to call.
        barrier();
        if (rank == 2) {
          shell("WEFT_TEST_CUT");
          std::this_thread::sleep_for(std::chrono::milliseconds(1500));
          shell("WEFT_TEST_MEND");
        }
        std::vector<float> w(100000, static_cast<float>(rank));
        all_reduce(view(w), ReduceOp::kSum, Group(), std::chrono::seconds(60));
        EXPECT_EQ(w[99999], 0.0f + 1.0f + 2.0f + 3.0f);

        // Cut for good: the leaders (ranks 0 and 2) wait for each other across the link.
        barrier();
        if (rank == 2) shell("WEFT_TEST_CUT");
        const auto timeout = std::chrono::seconds(2);
        const auto start = std::chrono::steady_clock::now();
        try {
          all_reduce(view(v), ReduceOp::kSum, Group(), timeout);
          ADD_FAILURE() << "all_reduce over a link that drops everything succeeded";
        } catch (const Error& e) {
          const auto waited = std::chrono::steady_clock::now() - start;
          EXPECT_LT(waited, 3 * timeout) << e.what();
          std::printf("rank %d gave up after %.2f s: %s\n", rank,
                      std::chrono::duration<double>(waited).count(), e.what());
          if (rank == 0 || rank == 2) {
            // The leaders time out waiting for each other. The others wait for their
            // leader, and may instead see it leave once it has given up.
            EXPECT_NE(dynamic_cast<const TimeoutError*>(&e), nullptr) << e.what();
            EXPECT_NE(std::string(e.what()).find(rank == 0 ? "rank 2 (" : "rank 0 ("),
                      std::string::npos)
                << e.what();
          }
        }
        if (rank == 2) shell("WEFT_TEST_MEND");
        // The group's state after a timed-out collective is not worth a clean goodbye
        // across a link that was just down: leave as a crashed rank would.
        std::fflush(stdout);
        _exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      options);
  expect_all_succeeded(ranks);
}

INSTANTIATE_TEST_SUITE_P(Transports, TwoHostsOfTwo, ::testing::Values("shm,tcp", "tcp"),
                         [](const auto& info) {
                           return std::string(info.param == std::string("tcp") ? "tcp"
                                                                               : "shm_and_tcp");
                         });

}  // namespace
}  // namespace weft::testing

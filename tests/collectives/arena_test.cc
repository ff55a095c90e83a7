// The shared-memory arena of intra-node collectives (collectives/arena): when a
// group gets one, that its collectives are right over many rounds and with
// asynchronous calls overtaken by blocking ones, and that failures inside it (a
// missing rank, a dead one, a disagreement) are reported, not waited out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "runtime/context.h"
#include "tests/collectives/collective_checks.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

bool world_has_arena() { return runtime::context("test").world->collectives.arena() != nullptr; }
bool has_arena(const Group& group) {
  return runtime::Handles::record(group)->collectives.arena() != nullptr;
}

TEST(Arena, EveryCollectiveOverManySmallRounds) {
  RunOptions options;
  options.timeout = std::chrono::seconds(120);
  options.env["WEFT_SHM_ARENA_BYTES"] = "256";  // 64 float32 per round
  expect_all_succeeded(run_ranks(
      3,
      [](int) {
        init_process_group();
        EXPECT_TRUE(world_has_arena());
        check_all_collectives(Group(), {.dtypes = {DType::kFloat32, DType::kInt8},
                                        .ops = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kAvg},
                                        .counts = {1, 63, 64, 65, 1000},
                                        .variable_forms = true});
        destroy_process_group();
      },
      options));
}

TEST(Arena, SubGroupsGetTheirOwnArenas) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    Group evens = new_group({0, 2});
    Group odds = new_group({3, 1});
    Group mine = rank % 2 == 0 ? evens : odds;
    EXPECT_TRUE(has_arena(mine));
    std::vector<int32_t> v(5000, rank);
    all_reduce(view(v), ReduceOp::kSum, mine);
    EXPECT_EQ(v[4999], rank % 2 == 0 ? 2 : 4);
    check_all_collectives(
        mine, {.dtypes = {DType::kInt32}, .ops = {ReduceOp::kSum}, .counts = {7, 100000}});
    destroy_process_group();
  }));
}

TEST(Arena, ABlockingCollectiveWaitsForTheAsynchronousOneBeforeIt) {
  RunOptions options;
  options.env["WEFT_SHM_ARENA_BYTES"] = "4K";
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        init_process_group();
        std::vector<float> first(300000, rank + 1.0f), second(1000, rank + 10.0f);
        Request r = iall_reduce(view(first));
        all_reduce(view(second));  // same arena: runs after `first`
        r.wait();
        EXPECT_EQ(first[299999], 3.0f);
        EXPECT_EQ(second[999], 21.0f);
        destroy_process_group();
      },
      options));
}

TEST(Arena, OffWithZeroBytesOrWhenAMemberIsInAnotherIpcNamespace) {
  RunOptions off;
  off.env["WEFT_SHM_ARENA_BYTES"] = "0";
  RunOptions mixed;  // rank 1 in an IPC namespace of its own
  mixed.wrapper = [](int rank) {
    return rank == 1 ? std::vector<std::string>{"unshare", "--ipc"} : std::vector<std::string>{};
  };
  for (const RunOptions& options : {off, mixed}) {
    expect_all_succeeded(run_ranks(
        3,
        [](int rank) {
          init_process_group();
          EXPECT_FALSE(world_has_arena());
          // Ranks 0 and 2 share memory, so their group gets one unless it is off.
          if (rank != 1) {
            Group pair = new_group({0, 2});
            EXPECT_EQ(has_arena(pair), std::getenv("WEFT_SHM_ARENA_BYTES") == nullptr);
            std::vector<int32_t> v(10, rank);
            all_reduce(view(v), ReduceOp::kSum, pair);
            EXPECT_EQ(v[9], 2);
          } else {
            new_group({0, 2});
          }
          std::vector<int32_t> w(10, rank);
          all_reduce(view(w));
          EXPECT_EQ(w[0], 3);
          destroy_process_group();
        },
        options));
  }
}

TEST(Arena, AnArenaTooLargeForDevShmIsAWarningAndCollectivesStillWork) {
  RunOptions options;
  options.env["WEFT_SHM_ARENA_BYTES"] = "4096G";
  auto ranks = run_ranks(
      2,
      [](int rank) {
        init_process_group();
        EXPECT_FALSE(world_has_arena());
        std::vector<int32_t> v(10, rank);
        all_reduce(view(v));
        EXPECT_EQ(v[0], 1);
        destroy_process_group();
      },
      options);
  expect_all_succeeded(ranks);
  EXPECT_NE(ranks[0].output.find("no shared-memory collectives"), std::string::npos)
      << ranks[0].output;
}

TEST(Arena, AMissingRankIsATimeoutNamingIt) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    if (rank == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    } else {
      std::vector<float> v(100, 1.0f);
      try {
        all_reduce(view(v), ReduceOp::kSum, Group(),
                   std::chrono::milliseconds(rank == 0 ? 300 : 5000));
        ADD_FAILURE() << "all_reduce without rank 2 succeeded";
      } catch (const TimeoutError& e) {
        // Rank 0 times out first and names rank 2; rank 1 learns from rank 0.
        std::string what = e.what();
        EXPECT_NE(what.find(rank == 0 ? "not yet arrived: rank 2 (" : "rank 0 gave up"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("all_reduce (shm_direct"), std::string::npos) << what;
      }
      // The arena is out of step now: later collectives of the world say so at once.
      try {
        barrier();
        ADD_FAILURE() << "barrier after a failed shared-memory collective succeeded";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("after an earlier failure"), std::string::npos)
            << e.what();
      }
    }
    destroy_process_group();
  }));
}

TEST(Arena, DifferentCountsAreADesyncErrorOnBothRanks) {
  RunOptions options;
  options.env["WEFT_SHM_ARENA_BYTES"] = "4K";
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        init_process_group();
        // Several rounds each; the counts, part of every round's signature, differ.
        std::vector<float> v(rank == 0 ? 5000 : 6000, 1.0f);
        try {
          all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(20));
          ADD_FAILURE() << "all_reduce of 5000 against 6000 elements succeeded";
        } catch (const DesyncError& e) {
          // Both calls, described by the one who found it or by the other.
          const std::string what = e.what();
          EXPECT_NE(what.find("disagree"), std::string::npos) << what;
          EXPECT_NE(what.find("all_reduce (op sum, float32, 5000 elements)"), std::string::npos)
              << what;
          EXPECT_NE(what.find("all_reduce (op sum, float32, 6000 elements)"), std::string::npos)
              << what;
        }
        destroy_process_group();
      },
      options));
}

TEST(Arena, AllGatherOfOtherCountsIsADesyncErrorSayingSo) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    ASSERT_TRUE(world_has_arena());
    // The same call but for its count, which the stamp leaves out for all_gather: the
    // shape in the signature tells them apart.
    const size_t count = rank == 0 ? 4 : 6;
    std::vector<int32_t> in(count, rank), out(2 * count, -1);
    try {
      all_gather(view(in), view(out), Group(), std::chrono::seconds(20));
      ADD_FAILURE() << "all_gather of 4 against 6 elements succeeded";
    } catch (const DesyncError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("called all_gather (int32) with other counts"), std::string::npos)
          << what;
    }
    destroy_process_group();
  }));
}

TEST(Arena, AReduceCombinesWithTheRootsOperationWhateverTheOthersPass) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    ASSERT_TRUE(world_has_arena());
    // The pattern of OSU's statistics: the root asks for the max, then the min; the
    // others pass min, then max. Each answer is the root's operation over all ranks.
    std::vector<double> value{10.0 + rank};
    for (ReduceOp root_op : {ReduceOp::kMax, ReduceOp::kMin}) {
      ReduceOp op =
          rank == 0 ? root_op : (root_op == ReduceOp::kMax ? ReduceOp::kMin : ReduceOp::kMax);
      std::vector<double> out{-1.0};
      reduce(view(value), view(out), 0, op);
      if (rank == 0) {
        EXPECT_EQ(out[0], root_op == ReduceOp::kMax ? 12.0 : 10.0);
      }
    }
    destroy_process_group();
  }));
}

TEST(Arena, AMemberThatLeftAfterItsPartIsNoFailureOfTheRootsWaitForAnother) {
  // Rank 2 gives its contribution and leaves at once; rank 1 comes late, so that the
  // root, waiting for it, sees rank 2's goodbye first. The reduce still completes.
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    ASSERT_TRUE(world_has_arena());
    barrier();
    if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::vector<int64_t> value{rank + 1}, out{-1};
    reduce(view(value), view(out), 0, ReduceOp::kSum);
    if (rank == 0) EXPECT_EQ(out[0], 6);
    destroy_process_group();
  }));
}

TEST(Arena, AKilledPeerIsAPeerErrorNamingIt) {
  auto ranks = run_ranks(3, [](int rank) {
    init_process_group();
    std::vector<float> v(1 << 22, 1.0f);
    all_reduce(view(v));  // all three in the arena once
    if (rank == 2) _exit(0);
    try {
      all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(60));
      ADD_FAILURE() << "all_reduce with a dead peer succeeded";
    } catch (const PeerError& e) {
      EXPECT_EQ(e.peer(), 2) << e.what();
    }
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
}

}  // namespace
}  // namespace weft::testing

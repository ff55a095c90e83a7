// Collectives between real processes: every collective, op and dtype on groups of 1
// to 8 processes and on sub-groups, each algorithm forced in turn, asynchronous
// forms, and the errors bad calls get.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <span>
#include <string>
#include <thread>

#include "collectives/algorithm_table.h"
#include "tests/collectives/collective_checks.h"
#include "tests/harness/multiprocess.h"
#include "tools/bench/typed_values.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

class WorldSizes : public ::testing::TestWithParam<int> {};

TEST_P(WorldSizes, EveryCollectiveOpAndDtype) {
  RunOptions options;
  options.timeout = std::chrono::seconds(600);
  expect_all_succeeded(run_ranks(
      GetParam(),
      [](int) {
        init_process_group();
        check_all_collectives(Group(), {});
        destroy_process_group();
      },
      options));
}

INSTANTIATE_TEST_SUITE_P(OneToEight, WorldSizes, ::testing::Range(1, 9));

TEST(Collectives, LargeCounts) {
  RunOptions options;
  options.timeout = std::chrono::seconds(600);
  expect_all_succeeded(run_ranks(
      3,
      [](int) {
        init_process_group();
        check_all_collectives(Group(), {.dtypes = {DType::kFloat32, DType::kBFloat16},
                                        .ops = {ReduceOp::kSum, ReduceOp::kMax},
                                        .counts = {(1u << 20) + 3},
                                        .variable_forms = false});
        destroy_process_group();
      },
      options));
}

TEST(Collectives, SubGroupsRunSideBySide) {
  expect_all_succeeded(run_ranks(6, [](int rank) {
    init_process_group();
    Group odd = new_group({1, 3, 5});
    Group even = new_group({4, 0, 2});  // group ranks follow the list's order
    Group& mine = rank % 2 ? odd : even;
    Group& other = rank % 2 ? even : odd;
    EXPECT_EQ(mine.size(), 3);
    EXPECT_EQ(mine.world_rank(mine.rank()), rank);
    EXPECT_EQ(other.rank(), -1);
    barrier(other);  // not a member: takes no part, returns at once
    check_all_collectives(
        mine, {.dtypes = {DType::kInt32, DType::kBFloat16, DType::kUInt8}, .counts = {0, 7, 1023}});
    // The world still works, and a destroyed group is refused.
    std::vector<int32_t> v{rank};
    all_reduce(view(v));
    EXPECT_EQ(v[0], 15);
    destroy_group(mine);
    EXPECT_THROW(barrier(mine), InvalidArgument);
    barrier();
    destroy_process_group();
  }));
}

// Each algorithm forced by WEFT_ALGO, on 4 and 5 ranks, with sizes around its segments.
class Algorithms : public ::testing::TestWithParam<std::string> {};

TEST_P(Algorithms, ForcedAlgorithmIsCorrectAndDeterministic) {
  for (int n : {4, 5}) {
    RunOptions options;
    options.timeout = std::chrono::seconds(300);
    options.env["WEFT_ALGO"] = GetParam();
    options.env["WEFT_SEGMENT_BYTES"] = "4K";
    options.env["WEFT_SHM_ARENA_BYTES"] = "4K";  // the arena's algorithms in many rounds
    expect_all_succeeded(run_ranks(
        n,
        [](int rank) {
          init_process_group();
          check_all_collectives(Group(),
                                {.dtypes = {DType::kInt32, DType::kFloat32, DType::kFloat16},
                                 .ops = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kProduct},
                                 .counts = {0, 1, 7, 1023, 70001},
                                 .variable_forms = true});
          // Fractional values, whose sums round differently in different orders: every
          // rank must still end with the same bits.
          std::mt19937 random(rank);
          std::uniform_real_distribution<float> u(-1, 1);
          std::vector<float> x(30011);
          for (float& f : x) f = u(random);
          all_reduce(view(x));
          expect_identical_everywhere(Group(), view(x));
          destroy_process_group();
        },
        options));
  }
}

std::vector<std::string> every_algorithm() {
  std::vector<std::string> names;
  for (const collectives::Algorithm& a : collectives::all_algorithms()) {
    names.push_back(std::string(collectives::collective_name(a.kind)) + ":" + a.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Each, Algorithms, ::testing::ValuesIn(every_algorithm()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s) {
                             if (c == ':') c = '_';
                           }
                           return s;
                         });

TEST(Collectives, AsynchronousFormsOverlap) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    std::vector<int64_t> a(100000, rank + 1), gathered(3 * 5), mine(5, rank);
    std::vector<float> b(10, rank == 2 ? 4.5f : 0.0f);
    Request ra = iall_reduce(view(a));
    Request rg = iall_gather(view(mine), view(gathered));
    Request rb = ibroadcast(view(b), 2);
    // A blocking collective while those run: each has its own messages.
    std::vector<int32_t> c{rank};
    all_reduce(view(c), ReduceOp::kMax);
    EXPECT_EQ(c[0], 2);
    rb.wait();
    rg.wait();
    ra.wait();
    EXPECT_TRUE(ra.is_completed());
    EXPECT_EQ(a[0], 6);
    EXPECT_EQ(a[99999], 6);
    for (int i = 0; i < 15; ++i) EXPECT_EQ(gathered[i], i / 5);
    for (float f : b) EXPECT_EQ(f, 4.5f);
    Request barrier_request = ibarrier();
    barrier_request.wait();
    destroy_process_group();
  }));
}

TEST(Collectives, DestroyFailsAnAsynchronousCollectiveStillPending) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::vector<float> v(100, 1.0f);
    Request r;
    if (rank == 0) {
      r = iall_reduce(view(v));  // rank 1 never joins it
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(1));  // rank 0 destroys first
    }
    destroy_process_group();
    if (rank == 0) {
      try {
        r.wait();
        ADD_FAILURE() << "the abandoned all_reduce succeeded";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kState) << e.what();
        EXPECT_NE(std::string(e.what()).find("destroy_process_group"), std::string::npos)
            << e.what();
      }
    }
  }));
}

TEST(CollectiveErrors, BadArgumentsAreRefusedBeforeAnythingIsSent) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::vector<float> f(4), g(5);
    std::vector<int32_t> i(4);
    auto message = [](auto call) -> std::string {
      try {
        call();
      } catch (const InvalidArgument& e) {
        return e.what();
      }
      return "(no InvalidArgument)";
    };
    EXPECT_NE(message([&] { broadcast(view(f), 2); }).find("root 2 (world rank) is outside [0, 2)"),
              std::string::npos);
    EXPECT_NE(message([&] { reduce(view(f), -1); }).find("root -1"), std::string::npos);
    EXPECT_NE(message([&] {
                all_reduce(view(f), ReduceOp::kBxor);
              }).find("bxor is defined on integer dtypes only, not float32"),
              std::string::npos);
    EXPECT_NE(message([&] { all_reduce(view(f), view(g)); }).find("output has 5 elements"),
              std::string::npos);
    EXPECT_NE(message([&] { all_reduce(view(f), view(i)); }).find("input is float32"),
              std::string::npos);
    EXPECT_NE(message([&] { all_gather(view(f), view(g)); }).find("expected 8"), std::string::npos);
    EXPECT_NE(message([&] {
                all_reduce(Tensor(f.data(), 3, DType::kFloat32),
                           Tensor(f.data() + 1, 3, DType::kFloat32));
              }).find("overlap"),
              std::string::npos);
    std::vector<uint64_t> one_count{4};
    EXPECT_NE(message([&] {
                reduce_scatterv(view(f), view(g), one_count);
              }).find("counts has 1 entries for a group of 2"),
              std::string::npos);
    // Sizes that do not fit in 64 bits are refused, not wrapped (and nothing is touched).
    EXPECT_NE(message([&] {
                all_reduce(Tensor(f.data(), uint64_t{1} << 62, DType::kFloat32));
              }).find("more than any buffer can hold"),
              std::string::npos);
    EXPECT_NE(message([&] {
                broadcast(Tensor(f.data(), uint64_t{1} << 62, DType::kFloat32), 0);
              }).find("tensor has 4611686018427387904 elements of float32"),
              std::string::npos);
    std::vector<uint64_t> counts{4, 4}, wrapping{0, ~uint64_t{0} - 1};
    EXPECT_NE(message([&] {
                all_gatherv(view(f), view(g), counts, wrapping);
              }).find("does not fit in 64 bits"),
              std::string::npos);
    EXPECT_NE(message([&] { new_group({0, 0}); }).find("appears twice"), std::string::npos);
    EXPECT_NE(message([&] { new_group({0, 2}); }).find("outside [0, 2)"), std::string::npos);
    // A good call after the bad ones works: they left nothing behind.
    f.assign(4, 1.0f);
    all_reduce(view(f));
    EXPECT_EQ(f[0], 2.0f);
    // Rank names: every message says which rank refused.
    EXPECT_NE(message([&] { broadcast(view(f), 9); }).find("rank " + std::to_string(rank)),
              std::string::npos);
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, MismatchedCountsAreADesyncErrorNotAHang) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::vector<int32_t> v(rank == 0 ? 10 : 20, 1);
    try {
      all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(20));
      ADD_FAILURE() << "all_reduce with different counts succeeded";
    } catch (const DesyncError& e) {
      EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos) << e.what();
    }
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, ZeroElementsAgainstSomeAreADesyncErrorOnBothRanks) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::vector<int32_t> v(rank == 0 ? 0 : 10, 1);
    try {
      all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(20));
      ADD_FAILURE() << "all_reduce of 0 against 10 elements succeeded";
    } catch (const DesyncError& e) {
      EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, DifferentCollectivesAreADesyncErrorOnBothRanks) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::vector<float> v(10, 1.0f);
    try {
      if (rank == 0) {
        all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(20));
      } else {
        barrier(Group(), std::chrono::seconds(20));
      }
      ADD_FAILURE() << "mismatched collectives succeeded";
    } catch (const DesyncError& e) {
      EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
    destroy_process_group();
  }));
}

// Every rank fails with DesyncError naming the disagreement, never with a timeout: the
// call stamps on the wire (collectives/call_stamp.h), or the arena's signatures, show
// that the ranks' calls differ, and whichever rank sees it first tells the others. A
// rank with nothing to receive (a root of broadcast in its own view) may have returned
// before: its next collective on the group fails. Each rank's message describes both
// calls, on every transport: it contains each of `both_calls`.
void expect_desync_on_every_rank(int ranks, const std::function<void(int rank)>& call,
                                 const std::vector<std::string>& both_calls) {
  expect_all_succeeded(run_ranks(ranks, [&](int rank) {
    init_process_group();
    try {
      call(rank);
      barrier(Group(), std::chrono::seconds(20));
      ADD_FAILURE() << "rank " << rank << ": mismatched collectives succeeded";
    } catch (const DesyncError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("disagree"), std::string::npos) << what;
      for (const std::string& named : both_calls) {
        EXPECT_NE(what.find(named), std::string::npos) << "rank " << rank << ": " << what;
      }
    }
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, DifferentOpsAreADesyncErrorOnEveryRank) {
  expect_desync_on_every_rank(4,
                              [](int rank) {
                                std::vector<float> v(1000, 1.0f);
                                all_reduce(view(v), rank == 2 ? ReduceOp::kMax : ReduceOp::kSum,
                                           Group(), std::chrono::seconds(20));
                              },
                              {"all_reduce (op max, float32, 1000 elements)",
                               "all_reduce (op sum, float32, 1000 elements)"});
}

TEST(CollectiveErrors, AllReduceAgainstBroadcastIsADesyncErrorOnEveryRank) {
  expect_desync_on_every_rank(4,
                              [](int rank) {
                                std::vector<float> v(1000, 1.0f);
                                if (rank == 1) {
                                  broadcast(view(v), 0, Group(), std::chrono::seconds(20));
                                } else {
                                  all_reduce(view(v), ReduceOp::kSum, Group(),
                                             std::chrono::seconds(20));
                                }
                              },
                              {"called broadcast (", "called all_reduce ("});
}

TEST(CollectiveErrors, DifferentRootsOfBroadcastAreADesyncErrorOnEveryRank) {
  expect_desync_on_every_rank(4,
                              [](int rank) {
                                std::vector<float> v(1000, float(rank));
                                broadcast(view(v), rank == 3 ? 1 : 0, Group(),
                                          std::chrono::seconds(20));
                              },
                              {"root: group rank 0", "root: group rank 1"});
}

TEST(CollectiveErrors, DifferentRootsOfReduceAreADesyncErrorOnEveryRank) {
  expect_desync_on_every_rank(4,
                              [](int rank) {
                                std::vector<float> v(1000, 1.0f);
                                reduce(view(v), rank == 0 ? 0 : 2, ReduceOp::kSum, Group(),
                                       std::chrono::seconds(20));
                              },
                              {"root: group rank 0", "root: group rank 2"});
}

TEST(CollectiveErrors, DifferentNewGroupListsAreADesyncError) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    try {
      new_group(rank == 2 ? std::vector<int>{0, 2} : std::vector<int>{0, 1});
      ADD_FAILURE() << "new_group with different lists succeeded";
    } catch (const DesyncError& e) {
      EXPECT_NE(std::string(e.what()).find("world ranks 2 disagree"), std::string::npos)
          << e.what();
    }
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, AMissingRankIsATimeoutNamingTheCollective) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    if (rank == 0) {
      std::vector<float> v(1000, 1.0f);
      try {
        all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::milliseconds(500));
        ADD_FAILURE() << "all_reduce without its peer succeeded";
      } catch (const TimeoutError& e) {
        // recursive_doubling over links, shm_direct in the shared-memory arena.
        EXPECT_NE(std::string(e.what()).find("all_reduce ("), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("rank 0 of group world, 1000 x float32"),
                  std::string::npos)
            << e.what();
      }
    } else {
      // Rank 1 calls no collective until rank 0 has given up.
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    destroy_process_group();
  }));
}

TEST(CollectiveErrors, ADeadPeerIsAPeerErrorNamingIt) {
  auto ranks = run_ranks(3, [](int rank) {
    init_process_group();
    if (rank == 2) _exit(0);  // gone without a word, as a crashed process is
    std::vector<int64_t> v(1 << 20, rank);
    try {
      all_reduce(view(v), ReduceOp::kSum, Group(), std::chrono::seconds(60));
      ADD_FAILURE() << "all_reduce with a dead peer succeeded";
    } catch (const PeerError& e) {
      EXPECT_EQ(e.peer(), 2) << e.what();
      EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos) << e.what();
    }
    // Neither survivor leaves before both have seen the failure: one that left early
    // could be what the other sees fail instead of rank 2.
    int32_t mine = rank, theirs = -1;
    Request sent = isend(view(std::span(&mine, 1)), 1 - rank, 99);
    recv(view(std::span(&theirs, 1)), 1 - rank, 99);
    sent.wait();
    EXPECT_EQ(theirs, 1 - rank);
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  });
  expect_all_succeeded(ranks);
}

// As in the original package, a process outside a group takes no part in the group's
// collectives: the call returns at once, an asynchronous one with a completed Request.
// Its point-to-point calls on the group are still refused.
TEST(CollectiveErrors, NonMembersTakeNoPartInCollectivesButAreRefusedPointToPoint) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    Group pair = new_group({0, 1});
    std::vector<float> f(3, 1.0f);
    if (rank == 2) {
      all_reduce(view(f), ReduceOp::kSum, pair);
      broadcast(view(f), 0, pair);
      barrier(pair);
      EXPECT_EQ(f[0], 1.0f) << "a non-member's tensor was touched";
      Request r = iall_reduce(view(f), ReduceOp::kSum, pair);
      EXPECT_TRUE(r.valid());
      EXPECT_TRUE(r.is_completed());
      r.wait();
      EXPECT_TRUE(ibroadcast(view(f), GroupRank{1}, pair).is_completed());
      EXPECT_EQ(f[0], 1.0f);
      EXPECT_THROW(send(view(f), 0, 0, pair), InvalidArgument);
      EXPECT_THROW(irecv(view(f), kAnySource, kAnyTag, pair), InvalidArgument);
      EXPECT_THROW(iprobe(kAnySource, kAnyTag, pair), InvalidArgument);
    } else {
      all_reduce(view(f), ReduceOp::kSum, pair);
      EXPECT_EQ(f[0], 2.0f);
      broadcast(view(f), 0, pair);
    }
    barrier();  // the world: rank 2 takes part again
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

// subgroup: MPI_Comm_create_group over any group, collective over the new group's
// members alone. Groups get the right members in the given order; the members need
// nothing of the parent's other members, which may be busy with messages, other
// subgroups or asynchronous collectives of the parent meanwhile; a user's wildcard
// receive on the parent never takes subgroup's messages; threads making groups of the
// same members at once are told apart by their tags; bad lists are refused.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/collectives/collective_checks.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

std::vector<int> world_ranks_of(const Group& group) {
  std::vector<int> ranks;
  for (int r = 0; r < group.size(); ++r) ranks.push_back(group.world_rank(r));
  return ranks;
}

int32_t sum_of_world_ranks(const Group& group, int rank) {
  int32_t sum = rank;
  all_reduce(view(std::span(&sum, 1)), ReduceOp::kSum, group);
  return sum;
}

TEST(Subgroup, MembersFormAGroupInTheOrderGivenWhileTheOthersDoSomethingElse) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    if (rank == 0 || rank == 2) {
      Group g = subgroup(Group(), {2, 0}, 7);
      EXPECT_EQ(world_ranks_of(g), (std::vector<int>{2, 0}));
      EXPECT_EQ(g.rank(), rank == 2 ? 0 : 1);
      EXPECT_EQ(sum_of_world_ranks(g, rank), 2);
      check_all_collectives(
          g, {.dtypes = {DType::kInt32}, .ops = {ReduceOp::kSum}, .counts = {1, 1000}});
    } else {
      // Messages among themselves on the parent, then a group of their own with the
      // same tag, at the same time as the other pair's.
      int peer = 4 - rank;
      int32_t out = 100 + rank, in = -1;
      Request s = isend(view(std::span(&out, 1)), peer, 7);
      recv(view(std::span(&in, 1)), peer, 7);
      s.wait();
      EXPECT_EQ(in, 100 + peer);
      Group g = subgroup(Group(), {3, 1}, 7);
      EXPECT_EQ(world_ranks_of(g), (std::vector<int>{3, 1}));
      EXPECT_EQ(sum_of_world_ranks(g, rank), 4);
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(Subgroup, AGroupOfOneNeedsNobodyElse) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    if (rank == 1) {
      Group alone = subgroup(Group(), {1});
      EXPECT_EQ(world_ranks_of(alone), (std::vector<int>{1}));
      EXPECT_EQ(alone.rank(), 0);
      barrier(alone);
      EXPECT_EQ(sum_of_world_ranks(alone, rank), 1);
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(Subgroup, AWildcardReceiveOnTheParentTakesOnlyTheUsersMessage) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    int32_t value = -1;
    Request pending;
    if (rank == 1) pending = irecv(view(std::span(&value, 1)));  // any source, any tag
    Group pair = subgroup(Group(), {0, 1}, 0);
    if (rank == 0) {
      int32_t out = 1234;
      send(view(std::span(&out, 1)), 1, 9);
    } else {
      pending.wait();
      EXPECT_EQ(value, 1234);
      EXPECT_EQ(pending.tag(), 9);
    }
    EXPECT_EQ(sum_of_world_ranks(pair, rank), 1);
    destroy_process_group();
  }));
}

TEST(Subgroup, ASubgroupOfASubgroupLeavesTheParentsCollectivesAlone) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    Group parent = subgroup(Group(), {0, 1, 2}, 1);
    // Rank 0 starts a collective of the parent; its messages reach ranks 1 and 2 while
    // they make a group of their own, and must wait there for the collective.
    int32_t total = rank + 1;
    Request reduce =
        rank == 0 ? iall_reduce(view(std::span(&total, 1)), ReduceOp::kSum, parent) : Request();
    if (rank != 0) {
      Group pair = subgroup(parent, {2, 1}, 1);
      EXPECT_EQ(world_ranks_of(pair), (std::vector<int>{2, 1}));
      EXPECT_EQ(sum_of_world_ranks(pair, rank), 3);
      reduce = iall_reduce(view(std::span(&total, 1)), ReduceOp::kSum, parent);
    }
    reduce.wait();
    EXPECT_EQ(total, 6);
    destroy_process_group();
  }));
}

// Without shared-memory arenas: setting one up waits on the job's store, whose one
// connection per process a waiting thread holds, so threads that set up arenas of
// different groups at once can block each other (see the note in collectives.h).
TEST(Subgroup, ThreadsMakingGroupsOfTheSameMembersAreToldApartByTheirTags) {
  RunOptions options;
  options.env["WEFT_SHM_ARENA_BYTES"] = "0";
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        init_process_group();
        constexpr int kThreads = 4;
        std::vector<std::thread> threads;
        std::vector<std::vector<int>> members(kThreads);
        std::vector<int32_t> sums(kThreads, -1);
        for (int t = 0; t < kThreads; ++t) {
          threads.emplace_back([&, t] {
            // Odd threads put rank 1 first, so both ranks are first members somewhere.
            std::vector<int> list = t % 2 == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
            Group g = subgroup(Group(), list, 10 + t);
            members[t] = world_ranks_of(g);
            int32_t v = (t + 1) * (rank + 1);
            all_reduce(view(std::span(&v, 1)), ReduceOp::kSum, g);
            sums[t] = v;
          });
        }
        for (auto& th : threads) th.join();
        for (int t = 0; t < kThreads; ++t) {
          EXPECT_EQ(members[t], t % 2 == 0 ? (std::vector<int>{0, 1}) : (std::vector<int>{1, 0}));
          EXPECT_EQ(sums[t], 3 * (t + 1));
        }
        destroy_process_group();
      },
      options));
}

void expect_invalid(const std::function<void()>& call, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "subgroup succeeded; expected an error saying \"" << text << "\"";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Subgroup, BadListsAndCallersOutsideThemAreRefused) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    expect_invalid([] { subgroup(Group(), {}); }, "parent_ranks is empty");
    expect_invalid([] { subgroup(Group(), {0, 2}); }, "parent_ranks[1] = 2 is outside [0, 2)");
    expect_invalid([] { subgroup(Group(), {1, 0, 1}); }, "rank 1 appears twice");
    expect_invalid([] { subgroup(Group(), {0, 1}, -1); }, "tag -1 is negative");
    expect_invalid([&] { subgroup(Group(), {1 - rank}); }, "is not in parent_ranks");
    Group only_zero = new_group({0});
    if (rank == 1) {
      expect_invalid([&] { subgroup(only_zero, {0}); }, "not a member of the parent group");
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(Subgroup, AMemberWithAnotherTagSeesTheDisagreement) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    // Tags 5 and 5 + 2^24 travel alike: rank 1 takes rank 0's message and sees that
    // its tag differs.
    if (rank == 1) {
      try {
        subgroup(Group(), {0, 1}, 5 + (1 << 24));
        ADD_FAILURE() << "subgroup succeeded with different tags";
      } catch (const DesyncError& e) {
        EXPECT_NE(std::string(e.what()).find("the members disagree"), std::string::npos)
            << e.what();
      }
    } else {
      // The first member learns nothing of it; it may wait for rank 1 and give up.
      try {
        subgroup(Group(), {0, 1}, 5, std::chrono::milliseconds(2000));
      } catch (const Error&) {
      }
    }
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

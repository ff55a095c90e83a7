// split_group: MPI_Comm_split over any group, collective over that group alone. Groups
// get the right members in the right order, their messages stay apart from their
// parent's, a group split from a subgroup works while the rest of the world does
// something else, and every collective runs on the results.
#include <gtest/gtest.h>

#include <string>
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

TEST(SplitGroup, ColorsMakeGroupsOrderedByKeyThenParentRank) {
  expect_all_succeeded(run_ranks(5, [](int rank) {
    init_process_group();
    // Parity, with keys that reverse the order among the evens and tie among the odds.
    int key = rank % 2 == 0 ? -rank : 7;
    std::optional<Group> half = split_group(Group(), rank % 2, key);
    ASSERT_TRUE(half.has_value());
    if (rank % 2 == 0) {
      EXPECT_EQ(world_ranks_of(*half), (std::vector<int>{4, 2, 0}));
    } else {
      EXPECT_EQ(world_ranks_of(*half), (std::vector<int>{1, 3}));
    }
    EXPECT_EQ(half->world_rank(half->rank()), rank);
    int32_t sum = rank;
    all_reduce(view(std::span(&sum, 1)), ReduceOp::kSum, *half);
    EXPECT_EQ(sum, rank % 2 == 0 ? 6 : 4);
    destroy_process_group();
  }));
}

TEST(SplitGroup, ANegativeColorJoinsNoGroup) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    std::optional<Group> g = split_group(Group(), rank == 1 ? -1 : 0, 0);
    EXPECT_EQ(g.has_value(), rank != 1);
    if (g) {
      EXPECT_EQ(world_ranks_of(*g), (std::vector<int>{0, 2}));
      barrier(*g);
    }
    destroy_process_group();
  }));
}

TEST(SplitGroup, ASplitOfTheSameRanksIsASeparateContext) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    std::optional<Group> dup = split_group(Group(), 0, rank);
    ASSERT_TRUE(dup.has_value());
    int peer = 1 - rank;
    int32_t on_world = 10 + rank, on_dup = 20 + rank, got_world = -1, got_dup = -1;
    Request a = isend(view(std::span(&on_world, 1)), peer, 3);
    Request b = isend(view(std::span(&on_dup, 1)), peer, 3, *dup);
    // Same tag and peer: the receive on the duplicate must not take the world's message.
    recv(view(std::span(&got_dup, 1)), peer, 3, *dup);
    recv(view(std::span(&got_world, 1)), peer, 3);
    a.wait();
    b.wait();
    EXPECT_EQ(got_dup, 20 + peer);
    EXPECT_EQ(got_world, 10 + peer);
    destroy_process_group();
  }));
}

TEST(SplitGroup, SplittingASubgroupInvolvesOnlyItsMembers) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    std::optional<Group> first_three = split_group(Group(), rank < 3 ? 0 : -1, rank);
    if (rank == 3) {
      // Busy elsewhere: the split below must not wait for this rank.
      EXPECT_FALSE(first_three.has_value());
    } else {
      std::optional<Group> pair = split_group(*first_three, rank == 2 ? -1 : 0, -rank);
      if (rank == 2) {
        EXPECT_FALSE(pair.has_value());
      } else {
        EXPECT_EQ(world_ranks_of(*pair), (std::vector<int>{1, 0}));
        check_all_collectives(
            *pair, {.dtypes = {DType::kInt32}, .ops = {ReduceOp::kSum}, .counts = {1, 1000}});
      }
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(SplitGroup, AProcessOutsideTheParentIsRefused) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    Group only_zero = new_group({0});
    if (rank == 1) {
      try {
        split_group(only_zero, 0, 0);
        ADD_FAILURE() << "split_group succeeded outside its parent";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("not a member of the parent group"), std::string::npos)
            << e.what();
      }
    }
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

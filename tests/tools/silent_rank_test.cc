#include "tools/weftrun/silent_rank.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace weft::weftrun {
namespace {

RankOutcome waited(int rank, bool stopped = false) { return {rank, stopped}; }
RankOutcome silent() { return {std::nullopt, true}; }       // weftrun had to stop it
RankOutcome ended() { return {std::nullopt, false}; }       // it ended by itself
RankOutcome stopped_too() { return {std::nullopt, true}; }  // stopped, waiting on nobody

TEST(SilentRank, NamesTheRankEveryoneWaitedFor) {
  // Rank 2 stopped; 0, 1 and 3 timed out waiting for it.
  std::optional<SilentRank> found =
      find_silent_rank({waited(2), waited(2), silent(), waited(2)}, 0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->rank, 2);
  EXPECT_EQ(found->waiters, (std::vector<int>{0, 1, 3}));
}

TEST(SilentRank, FollowsRanksThatWaitedForRanksThatTimedOut) {
  // A ring: 3 waited for 2 (stopped), 0 for 3, 1 for 0; 0 failed first.
  std::optional<SilentRank> found =
      find_silent_rank({waited(3), waited(0), silent(), waited(2, true)}, 0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->rank, 2);
  EXPECT_EQ(found->waiters, (std::vector<int>{0, 1, 3}));
}

TEST(SilentRank, NothingWhenTheFirstFailureDidNotTimeOut) {
  // Rank 1 failed first with an error of its own kind; rank 0's report (a timed wait
  // the program retried, say) did not end the job.
  EXPECT_FALSE(find_silent_rank({waited(2), ended(), silent()}, 1));
}

TEST(SilentRank, ARankThatEndedByItselfIsNotSilent) {
  // Rank 1 exited (crashed or finished) while rank 0 waited for it: its own end is the
  // failure to report.
  EXPECT_FALSE(find_silent_rank({waited(1), ended()}, 0));
}

TEST(SilentRank, NothingWithoutReports) {
  EXPECT_FALSE(find_silent_rank({ended(), stopped_too(), stopped_too()}, 0));
  EXPECT_FALSE(find_silent_rank({}, -1));
}

TEST(SilentRank, ACircleOfTimeoutsIsADeadlockNotASilentRank) {
  EXPECT_FALSE(find_silent_rank({waited(1), waited(0), stopped_too()}, 0));
}

TEST(SilentRank, AReportNamingNoRankOfTheJobIsIgnored) {
  EXPECT_FALSE(find_silent_rank({waited(7), stopped_too()}, 0));
}

TEST(SilentRank, DescribesRanks) {
  EXPECT_EQ(describe_ranks({2}), "rank 2");
  EXPECT_EQ(describe_ranks({0, 3}), "ranks 0 and 3");
  EXPECT_EQ(describe_ranks({0, 1, 3}), "ranks 0, 1 and 3");
  EXPECT_EQ(describe_silent_rank({2, {0, 1, 3}}, "node-b:77"),
            "rank 2 (node-b:77) stopped responding: ranks 0, 1 and 3 timed out waiting for it");
}

}  // namespace
}  // namespace weft::weftrun

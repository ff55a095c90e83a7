#include "tools/weftrun/exit_report.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>

namespace weft::weftrun {
namespace {

using std::chrono::milliseconds;

int exited(int code) { return exit_status_with_code(code); }
int killed(int signal_number) { return signal_number; }  // how waitpid() encodes it

TEST(ExitReport, DescribesWaitStatuses) {
  EXPECT_EQ(describe_wait_status(exited(0)), "exited with status 0");
  EXPECT_EQ(describe_wait_status(exited(3)), "exited with status 3");
  EXPECT_EQ(describe_wait_status(killed(SIGKILL)), "was killed by signal 9 (Killed)");
  EXPECT_EQ(describe_wait_status(killed(SIGSEGV) | 0x80),
            "was killed by signal 11 (Segmentation fault) and dumped core");
}

TEST(ExitReport, ExitCodesFollowTheShell) {
  EXPECT_EQ(exit_code_of(exited(0)), 0);
  EXPECT_EQ(exit_code_of(exited(3)), 3);
  EXPECT_EQ(exit_code_of(exited(255)), 255);
  EXPECT_EQ(exit_code_of(killed(SIGKILL)), 137);
  EXPECT_EQ(exit_code_of(killed(SIGTERM)), 143);
  EXPECT_FALSE(is_failure(exited(0)));
  EXPECT_TRUE(is_failure(exited(1)));
  EXPECT_TRUE(is_failure(killed(SIGINT)));
}

TEST(ExitReport, FormatsSecondsAsTyped) {
  EXPECT_EQ(format_seconds(milliseconds(2000)), "2");
  EXPECT_EQ(format_seconds(milliseconds(500)), "0.5");
  EXPECT_EQ(format_seconds(milliseconds(1250)), "1.25");
  EXPECT_EQ(format_seconds(milliseconds(1)), "0.001");
  EXPECT_EQ(format_seconds(milliseconds(0)), "0");
}

TEST(ExitReport, FirstFailureKilledBySignal) {
  FirstFailure f{2, 1234, killed(SIGKILL), 4, 0, 3};
  EXPECT_EQ(describe_first_failure(f),
            "weftrun: rank 2 (pid 1234) was killed by signal 9 (Killed) first; "
            "3 other rank(s) were stopped");
}

TEST(ExitReport, FirstFailureWithOthersFailingAfterIt) {
  FirstFailure f{1, 99, exited(3), 4, 2, 1};
  EXPECT_EQ(describe_first_failure(f),
            "weftrun: rank 1 (pid 99) exited with status 3 first; 2 other rank(s) failed "
            "after it, 1 other rank(s) were stopped");
}

TEST(ExitReport, FirstFailureWhileTheOthersSucceeded) {
  FirstFailure f{0, 5, exited(1), 3, 0, 0};
  EXPECT_EQ(describe_first_failure(f),
            "weftrun: rank 0 (pid 5) exited with status 1 first; the other ranks exited "
            "successfully");
}

TEST(ExitReport, FailureOfTheOnlyRankIsNotCalledFirst) {
  FirstFailure f{0, 5, exited(7), 1, 0, 0};
  EXPECT_EQ(describe_first_failure(f), "weftrun: rank 0 (pid 5) exited with status 7");
}

TEST(ExitReport, RankThatNeverStarted) {
  FirstFailure f{3, -1, exited(127), 4, 0, 3};
  EXPECT_EQ(describe_first_failure(f),
            "weftrun: rank 3 could not be started first; 3 other rank(s) were stopped");
}

}  // namespace
}  // namespace weft::weftrun

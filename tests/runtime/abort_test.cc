// weft::abort: every pending operation fails at once on every rank, the aborting rank
// named on the others; later operations fail at once; destroy_process_group still works.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using namespace weft;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;

// Long enough that only an abort, never a timeout, can end the waits below.
constexpr Timeout kLong = std::chrono::seconds(60);

template <typename F>
std::chrono::milliseconds elapsed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

TEST(Abort, FailsPendingOperationsOnEveryRankNamingTheAbortingRank) {
  auto ranks = run_ranks(3, [](int rank) {
    init_process_group("auto", "env://", -1, -1, "", kLong);
    std::vector<float> buffer(1024);
    if (rank == 1) {
      // Let the others block first.
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      abort("the input data is corrupt");
      // Every later operation fails at once, here too.
      try {
        send(view(buffer), 0);
        ADD_FAILURE() << "send after abort succeeded";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("weft::abort was called on this rank"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("the input data is corrupt"), std::string::npos)
            << e.what();
      }
    } else {
      // Rank 0 waits on an irecv from rank 1, rank 2 in a blocking recv from rank 1: both
      // fail with a PeerError naming rank 1, long before their timeout.
      try {
        if (rank == 0) {
          Request r = irecv(view(buffer), 1);
          r.wait(kLong);
        } else {
          recv(view(buffer), 1, kAnyTag, Group(), kLong);
        }
        ADD_FAILURE() << "the receive completed";
      } catch (const PeerError& e) {
        EXPECT_EQ(e.peer(), 1) << e.what();
        EXPECT_NE(std::string(e.what()).find("aborted the job (it called weft::abort)"),
                  std::string::npos)
            << e.what();
      }
      // A collective started afterwards fails at once too.
      EXPECT_THROW(all_reduce(view(buffer), ReduceOp::kSum, Group(), kLong), Error);
    }
    destroy_process_group();
  });
  expect_all_succeeded(ranks);
}

TEST(Abort, FromAnotherThreadWhileThisRankWaitsInACollective) {
  auto ranks = run_ranks(2, [](int rank) {
    init_process_group("auto", "env://", -1, -1, "", kLong);
    std::vector<float> buffer(64);
    if (rank == 0) {
      // A watchdog thread gives up on the collective the main thread is blocked in (rank
      // 1 never joins it).
      std::thread watchdog([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        abort("watchdog: no progress");
      });
      auto took = elapsed([&] {
        try {
          all_reduce(view(buffer), ReduceOp::kSum, Group(), kLong);
          ADD_FAILURE() << "all_reduce completed";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), ErrorCode::kState) << e.what();
          EXPECT_NE(std::string(e.what()).find("watchdog: no progress"), std::string::npos)
              << e.what();
        }
      });
      watchdog.join();
      EXPECT_LT(took, std::chrono::seconds(30)) << "the abort did not end the wait";
      abort("again");  // a second call does nothing
    } else {
      // Blocked in a receive nobody sends; rank 0's abort ends it.
      try {
        recv(view(buffer), 0, 5, Group(), kLong);
        ADD_FAILURE() << "the receive completed";
      } catch (const PeerError& e) {
        EXPECT_EQ(e.peer(), 0) << e.what();
      }
      // This rank's own abort after the peer's does nothing more.
      abort("late");
    }
    destroy_process_group();
    // The process may join a new job afterwards: that is what aborting is for.
    EXPECT_FALSE(is_initialized());
  });
  expect_all_succeeded(ranks);
}

TEST(Abort, BeforeInitIsAStateError) {
  try {
    abort("nothing to abort");
    ADD_FAILURE() << "abort before init_process_group succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kState) << e.what();
  }
}

}  // namespace

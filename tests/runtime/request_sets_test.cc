// wait_any, wait_all, test_any and test_some between real processes, and what a
// blocking recv reports.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using std::chrono::milliseconds;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;

// A one-int message from `from` to `to`, so the ranks can take turns.
void signal_rank(int to, int tag) {
  int one = 1;
  weft::send(weft::view(std::span(&one, 1)), to, tag);
}
void await_signal(int from, int tag) {
  int one = 0;
  weft::recv(weft::view(std::span(&one, 1)), from, tag);
}

constexpr int kGo = 100;

TEST(Recv, ReportsSourceTagAndBytes) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      std::vector<float> got(8);
      weft::RecvResult r = weft::recv(weft::view(got), 2, weft::kAnyTag);
      EXPECT_EQ(r.source, 2);
      EXPECT_EQ(r.tag, 9);
      EXPECT_EQ(r.bytes, 3 * sizeof(float));
      // It still converts to the source rank, as recv's int did.
      int from = weft::recv(weft::view(got), weft::kAnySource, 4);
      EXPECT_EQ(from, 1);
      auto [source, tag, bytes, group_source] = weft::recv(weft::view(got), 1);
      EXPECT_EQ(source, 1);
      EXPECT_EQ(tag, 5);
      EXPECT_EQ(bytes, 0u);
      EXPECT_EQ(group_source, 1);  // the world group: both numberings agree
    } else if (rank == 1) {
      std::vector<float> out(2);
      weft::send(weft::view(out), 0, 4);
      weft::send(weft::view(std::span(out.data(), 0)), 0, 5);
    } else {
      std::vector<float> out(3);
      weft::send(weft::view(out), 0, 9);
    }
    weft::destroy_process_group();
  }));
}

TEST(RequestSets, EmptyHandlesAreIgnored) {
  // Nothing valid to wait for: "none" at once, with no process group needed.
  std::vector<weft::Request> none(3);
  EXPECT_EQ(weft::wait_any(none), std::nullopt);
  EXPECT_EQ(weft::wait_any({}), std::nullopt);
  EXPECT_EQ(weft::test_any(none), std::nullopt);
  EXPECT_TRUE(weft::test_some(none).empty());
  weft::wait_all(none);
  weft::wait_all({});
}

TEST(RequestSets, ReportWhichCompletedLowestFirst) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      std::vector<int> in(4, -1);
      std::vector<weft::Request> r;
      for (int i = 0; i < 4; ++i) r.push_back(weft::irecv(weft::view(std::span(&in[i], 1)), 1, i));
      EXPECT_EQ(weft::test_any(r), std::nullopt);
      EXPECT_TRUE(weft::test_some(r).empty());
      signal_rank(1, kGo);  // rank 1 sends tag 2
      EXPECT_EQ(weft::wait_any(r), std::optional<size_t>(2));
      EXPECT_EQ(in[2], 2);
      r[2] = weft::Request();  // done with it: an empty handle is passed over
      signal_rank(1, kGo);     // tags 3, then 0
      await_signal(1, kGo);
      std::vector<size_t> done = weft::test_some(r);
      EXPECT_EQ(done, (std::vector<size_t>{0, 3}));
      EXPECT_EQ(weft::test_any(r), std::optional<size_t>(0));
      r[0] = r[3] = weft::Request();
      signal_rank(1, kGo);  // tag 1
      EXPECT_EQ(weft::wait_any(r), std::optional<size_t>(1));
      weft::wait_all(r);
      EXPECT_EQ(in, (std::vector<int>{0, 1, 2, 3}));
      r[1] = weft::Request();
      EXPECT_EQ(weft::wait_any(r), std::nullopt);
    } else {
      auto send_tag = [](int tag) { weft::send(weft::view(std::span(&tag, 1)), 0, tag); };
      await_signal(0, kGo);
      send_tag(2);
      await_signal(0, kGo);
      send_tag(3);
      send_tag(0);
      signal_rank(0, kGo);
      await_signal(0, kGo);
      send_tag(1);
    }
    weft::destroy_process_group();
  }));
}

TEST(RequestSets, TimeoutsNameWhatWasAwaitedAndLeaveRequestsPending) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      int a = 0, b = 0;
      std::vector<weft::Request> r = {weft::irecv(weft::view(std::span(&a, 1)), 1, 7),
                                      weft::irecv(weft::view(std::span(&b, 1)), 1, 8)};
      auto started = std::chrono::steady_clock::now();
      try {
        weft::wait_any(r, milliseconds(200));
        ADD_FAILURE() << "wait_any returned";
      } catch (const weft::TimeoutError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("wait_any"), std::string::npos) << what;
        EXPECT_NE(what.find("recv by rank 0 from rank 1 (tag 7"), std::string::npos) << what;
        EXPECT_NE(what.find("1 more"), std::string::npos) << what;
        EXPECT_NE(what.find("200 ms"), std::string::npos) << what;
      }
      EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(200));
      signal_rank(1, kGo);  // tag 8 only
      EXPECT_EQ(weft::wait_any(r), std::optional<size_t>(1));
      try {
        weft::wait_all(r, milliseconds(100));
        ADD_FAILURE() << "wait_all returned";
      } catch (const weft::TimeoutError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("wait_all"), std::string::npos) << what;
        EXPECT_NE(what.find("tag 7"), std::string::npos) << what;
      }
      EXPECT_FALSE(r[0].is_completed());
      signal_rank(1, kGo);  // tag 7
      weft::wait_all(r);
      EXPECT_EQ(a, 7);
      EXPECT_EQ(b, 8);
    } else {
      auto send_tag = [](int tag) { weft::send(weft::view(std::span(&tag, 1)), 0, tag); };
      await_signal(0, kGo);
      send_tag(8);
      await_signal(0, kGo);
      send_tag(7);
    }
    weft::destroy_process_group();
  }));
}

TEST(RequestSets, AFailedRequestIsReportedByIndexAndLeavesTheOthersAlone) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      int small = -1;
      std::vector<int> big(4, -1);
      int last = -1;
      // The message of tag 1 does not fit: that receive fails with InvalidArgument.
      std::vector<weft::Request> r = {weft::irecv(weft::view(big), 1, 0),
                                      weft::irecv(weft::view(std::span(&small, 1)), 1, 1),
                                      weft::irecv(weft::view(std::span(&last, 1)), 1, 2)};
      signal_rank(1, kGo);                                     // tag 1 only
      EXPECT_EQ(weft::wait_any(r), std::optional<size_t>(1));  // no throw: the index says
      EXPECT_THROW(r[1].wait(), weft::InvalidArgument);
      EXPECT_EQ(small, -1);  // nothing written
      EXPECT_FALSE(r[0].is_completed());
      EXPECT_FALSE(r[2].is_completed());
      signal_rank(1, kGo);  // tags 0 and 2
      // wait_all waits for all of them, then throws the failed one's error.
      EXPECT_THROW(weft::wait_all(r), weft::InvalidArgument);
      EXPECT_EQ(weft::test_some(r), (std::vector<size_t>{0, 1, 2}));
      r[0].wait();
      r[2].wait();
      EXPECT_EQ(big, (std::vector<int>{0, 0, 0, 0}));
      EXPECT_EQ(last, 2);
    } else {
      std::vector<int> four(4, 0);
      int two = 2;
      await_signal(0, kGo);
      weft::send(weft::view(four), 0, 1);
      await_signal(0, kGo);
      weft::send(weft::view(four), 0, 0);
      weft::send(weft::view(std::span(&two, 1)), 0, 2);
    }
    weft::destroy_process_group();
  }));
}

TEST(RequestSets, AnySourceReceiveFailsWhenAPeerCrashesAndTheOthersGoOn) {
  // Rank 0 waits for a message from rank 1 and for one from anyone; rank 2 crashes.
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      int from_one = -1, from_any = -1;
      std::vector<weft::Request> r = {
          weft::irecv(weft::view(std::span(&from_one, 1)), 1, 3),
          weft::irecv(weft::view(std::span(&from_any, 1)), weft::kAnySource, 4)};
      signal_rank(2, kGo);
      EXPECT_EQ(weft::wait_any(r, milliseconds(60000)), std::optional<size_t>(1));
      EXPECT_THROW(r[1].wait(), weft::PeerError);
      EXPECT_FALSE(r[0].is_completed());
      signal_rank(1, kGo);
      r[1] = weft::Request();
      weft::wait_all(r, milliseconds(60000));
      EXPECT_EQ(from_one, 3);
    } else if (rank == 1) {
      await_signal(0, kGo);
      int three = 3;
      weft::send(weft::view(std::span(&three, 1)), 0, 3);
    } else {
      await_signal(0, kGo);
      raise(SIGKILL);
    }
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[2].signal, SIGKILL);
}

TEST(RequestSets, CollectivesAndMessagesInOneSet) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int never = 0;
    std::vector<float> v(16, 1.0f);
    // A receive nobody answers, and an all_reduce: wait_any reports the collective.
    std::vector<weft::Request> r = {weft::irecv(weft::view(std::span(&never, 1)), 1 - rank, 50),
                                    weft::iall_reduce(weft::view(v))};
    EXPECT_EQ(weft::wait_any(r, milliseconds(10000)), std::optional<size_t>(1));
    EXPECT_EQ(v[0], 2.0f);
    r[1] = weft::ibarrier();
    EXPECT_EQ(weft::wait_any(r, milliseconds(10000)), std::optional<size_t>(1));
    EXPECT_TRUE(r[0].cancel());
    weft::wait_all(r);
    EXPECT_TRUE(r[0].cancelled());
    // Neither leaves while the other still waits: its receive would fail.
    weft::barrier();
    weft::destroy_process_group();
  }));
}

}  // namespace

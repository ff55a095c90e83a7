// Point-to-point semantics between real processes: sizes, ordering, wildcards, self.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "tests/harness/byte_pattern.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using weft::testing::byte_pattern;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;

TEST(PointToPoint, PingPong) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    EXPECT_EQ(weft::get_rank(), rank);
    EXPECT_EQ(weft::get_world_size(), 2);
    std::vector<int32_t> v(5);
    if (rank == 0) {
      std::iota(v.begin(), v.end(), 10);
      weft::send(weft::view(v), 1, 7);
      EXPECT_EQ(weft::recv(weft::view(v), 1, 8), 1);
      EXPECT_EQ(v, (std::vector<int32_t>{20, 22, 24, 26, 28}));
    } else {
      EXPECT_EQ(weft::recv(weft::view(v), 0, 7), 0);
      for (auto& x : v) x *= 2;
      weft::send(weft::view(v), 0, 8);
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, EverySizeArrivesIntact) {
  // Both sides of the eager limit (64 KiB), page-sized edges, and large messages.
  const std::vector<size_t> sizes = {0,     1,     4095,    4096,      65536 - 1,
                                     65536, 65537, 1 << 20, 256u << 20};
  expect_all_succeeded(run_ranks(2, [&](int rank) {
    weft::init_process_group();
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (rank == 0) {
        auto data = byte_pattern(sizes[i], i);
        weft::send(weft::view(data), 1, static_cast<int>(i));
      } else {
        std::vector<uint8_t> got(sizes[i] + 16, 0xEE);  // larger than the message
        weft::Request r = weft::irecv(weft::view(got), 0, static_cast<int>(i));
        r.wait();
        EXPECT_EQ(r.source(), 0);
        EXPECT_EQ(r.tag(), static_cast<int>(i));
        EXPECT_EQ(r.bytes(), sizes[i]);
        auto want = byte_pattern(sizes[i], i);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << sizes[i] << " bytes";
        for (size_t j = sizes[i]; j < got.size(); ++j)
          ASSERT_EQ(got[j], 0xEE) << "wrote past the message";
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, MessagesDoNotOvertakeAcrossTagsAndProtocols) {
  // Rank 0 sends 60 messages with tags 0, 1, 2 in turn, every third one larger than the
  // eager limit. Rank 1 receives all of tag 2 first, then tag 0, then tag 1 with
  // any-tag receives: each tag's messages must arrive in send order.
  constexpr int kMessages = 60;
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    auto size_of = [](int i) { return i % 3 == 1 ? size_t{200000} : static_cast<size_t>(100 + i); };
    if (rank == 0) {
      std::vector<std::vector<uint8_t>> out;
      std::vector<weft::Request> requests;
      for (int i = 0; i < kMessages; ++i) out.push_back(byte_pattern(size_of(i), i));
      for (int i = 0; i < kMessages; ++i)
        requests.push_back(weft::isend(weft::view(out[i]), 1, i % 3));
      for (auto& r : requests) r.wait();
    } else {
      std::vector<std::vector<uint8_t>> in(kMessages, std::vector<uint8_t>(200000));
      std::vector<weft::Request> requests;
      std::vector<int> expected_order;
      for (int tag : {2, 0}) {
        for (int i = tag; i < kMessages; i += 3) {
          requests.push_back(weft::irecv(weft::view(in[i]), 0, tag));
          expected_order.push_back(i);
        }
      }
      for (int i = 1; i < kMessages; i += 3) {
        requests.push_back(weft::irecv(weft::view(in[i]), weft::kAnySource, weft::kAnyTag));
        expected_order.push_back(i);
      }
      for (size_t k = 0; k < requests.size(); ++k) {
        requests[k].wait();
        int i = expected_order[k];
        ASSERT_EQ(requests[k].tag(), i % 3);
        ASSERT_EQ(requests[k].bytes(), size_of(i)) << "message " << i << " overtaken";
        auto want = byte_pattern(size_of(i), i);
        ASSERT_TRUE(std::equal(want.begin(), want.end(), in[i].begin())) << "message " << i;
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, AnySourceFromSeveralSenders) {
  constexpr int kPerSender = 50;
  expect_all_succeeded(run_ranks(4, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      std::vector<int> next(4, 0);
      for (int k = 0; k < 3 * kPerSender; ++k) {
        int64_t msg[2];
        int from = weft::recv(weft::view(msg), weft::kAnySource, 5);
        ASSERT_GE(from, 1);
        ASSERT_EQ(msg[0], from);
        ASSERT_EQ(msg[1], next[from]++) << "messages from rank " << from << " out of order";
      }
      EXPECT_EQ(next, (std::vector<int>{0, kPerSender, kPerSender, kPerSender}));
    } else {
      for (int64_t k = 0; k < kPerSender; ++k) {
        int64_t msg[2] = {rank, k};
        weft::send(weft::view(msg), 0, 5);
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, SendToSelf) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    auto small = byte_pattern(100, 1), large = byte_pattern(1 << 20, 2);
    std::vector<uint8_t> got_small(100), got_large(1 << 20);
    // Small: buffered, so a blocking send before the receive is fine.
    weft::send(weft::view(small), rank, 1);
    weft::recv(weft::view(got_small), rank, 1);
    EXPECT_EQ(got_small, small);
    // Large: completes when matched, so it must be asynchronous.
    weft::Request s = weft::isend(weft::view(large), rank, 2);
    EXPECT_EQ(weft::recv(weft::view(got_large), weft::kAnySource, 2), rank);
    s.wait();
    EXPECT_EQ(got_large, large);
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, ASynchronousSendCompletesOnlyOnceMatched) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    // 0 and 8 bytes would go eagerly as ordinary sends; 1 MiB by rendezvous anyway.
    for (size_t bytes : {size_t{0}, size_t{8}, size_t{1} << 20}) {
      auto data = byte_pattern(bytes, 3);
      std::vector<uint8_t> got(bytes);
      int32_t go = 1;
      if (rank == 0) {
        weft::Request s = weft::issend(weft::view(data), 1, 1);
        // Rank 1 posts its receive only after the go message below.
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        EXPECT_FALSE(s.is_completed()) << bytes << " bytes";
        weft::send(weft::view(std::span(&go, 1)), 1, 2);
        s.wait();
      } else {
        weft::recv(weft::view(std::span(&go, 1)), 0, 2);
        weft::recv(weft::view(got), 0, 1);
        EXPECT_EQ(got, data);
      }
    }
    // To itself: completes when its own receive takes it.
    auto mine = byte_pattern(16, 4);
    std::vector<uint8_t> got(16);
    weft::Request s = weft::issend(weft::view(mine), rank, 5);
    EXPECT_FALSE(s.is_completed());
    weft::recv(weft::view(got), rank, 5);
    s.wait();
    EXPECT_EQ(got, mine);
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, ASmallSendCompletesAtOnceAndReportsWhatItSent) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<int32_t> data{5, 6, 7}, got(3, 0);
    if (rank == 0) {
      // The receive is not posted yet, and the send is complete all the same: the
      // message has left the buffer, which may be reused at once.
      weft::Request s = weft::isend(weft::view(data), 1, 11);
      ASSERT_TRUE(s.valid());
      EXPECT_TRUE(s.is_completed());
      data.assign(3, -1);
      EXPECT_FALSE(s.cancel());
      EXPECT_FALSE(s.cancelled());
      EXPECT_EQ(s.source(), 1);
      EXPECT_EQ(s.group_source(), 1);
      EXPECT_EQ(s.tag(), 11);
      EXPECT_EQ(s.bytes(), 12u);
      weft::Request::Outcome outcome = s.outcome();
      EXPECT_EQ(outcome.source, 1);
      EXPECT_EQ(outcome.group_source, 1);
      EXPECT_EQ(outcome.tag, 11);
      EXPECT_EQ(outcome.bytes, 12u);
      EXPECT_FALSE(outcome.cancelled);
      s.wait();
      EXPECT_EQ(weft::wait_any(std::span(&s, 1)), std::optional<size_t>(0));
      EXPECT_EQ(weft::test_some(std::span(&s, 1)), std::vector<size_t>{0});
      weft::wait_all(std::span(&s, 1));
      int32_t go = 1;
      weft::send(weft::view(std::span(&go, 1)), 1, 12);
    } else {
      int32_t go = 0;
      weft::recv(weft::view(std::span(&go, 1)), 0, 12);
      EXPECT_EQ(weft::recv(weft::view(got), 0, 11).bytes, 12u);
      EXPECT_EQ(got, (std::vector<int32_t>{5, 6, 7}));
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, CancelWithdrawsOnlyAReceiveNothingHasMatched) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<int32_t> a(4, -1), b(4, -1), sent{1, 2, 3, 4};
    if (rank == 0) {
      // Cancelled before anything was sent: complete, untouched, and the message sent
      // afterwards goes to the next matching receive instead.
      weft::Request first = weft::irecv(weft::view(a), 1, 3);
      EXPECT_TRUE(first.cancel());
      EXPECT_TRUE(first.is_completed());
      EXPECT_TRUE(first.cancelled());
      EXPECT_TRUE(first.outcome().cancelled);
      first.wait();
      EXPECT_EQ(a, std::vector<int32_t>(4, -1));
      EXPECT_FALSE(first.cancel());  // already complete
      int32_t go = 1;
      weft::send(weft::view(std::span(&go, 1)), 1, 9);
      EXPECT_EQ(weft::recv(weft::view(b), 1, 3), 1);
      EXPECT_EQ(b, sent);
      // Matched already: the cancel fails and the message is received.
      weft::Request second = weft::irecv(weft::view(a), 1, 4);
      second.wait();
      EXPECT_FALSE(second.cancel());
      EXPECT_FALSE(second.cancelled());
      EXPECT_EQ(second.outcome().bytes, sent.size() * sizeof(int32_t));
      EXPECT_EQ(second.outcome().source, 1);
      EXPECT_EQ(a, sent);
    } else {
      int32_t go = 0;
      weft::recv(weft::view(std::span(&go, 1)), 0, 9);
      weft::send(weft::view(sent), 0, 3);
      // A send cannot be cancelled.
      weft::Request s = weft::isend(weft::view(sent), 0, 4);
      EXPECT_FALSE(s.cancel());
      s.wait();
      EXPECT_FALSE(s.cancelled());
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, IsCompletedNeverBlocksAndRequestsProgressInBackground) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<float> big(4 << 20);  // 16 MiB: a rendezvous transfer
    uint8_t go = 0;
    if (rank == 0) {
      weft::Request r = weft::irecv(weft::view(big), 1, 0);
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 1000; ++i) EXPECT_FALSE(r.is_completed());
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
      weft::send(weft::view(std::span(&go, 1)), 1, 1);
      while (!r.is_completed()) {
      }
      r.wait();
      EXPECT_EQ(big[12345], 12345.0f);
    } else {
      for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i);
      weft::recv(weft::view(std::span(&go, 1)), 0, 1);
      // The send progresses on the progress thread while this rank "computes".
      weft::Request s = weft::isend(weft::view(big), 0, 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      EXPECT_TRUE(s.is_completed());
      s.wait();
    }
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, SeveralThreadsCommunicateAtOnce) {
  // Four threads per rank, each with a tag of its own, mixing small and large messages
  // in both directions: the engine's lock and progress must serve them all.
  constexpr int kThreads = 4, kRounds = 40;
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([rank, t, &wrong] {
        for (int round = 0; round < kRounds; ++round) {
          size_t bytes = round % 4 == 3 ? 300000 : 64 + t;
          auto out = byte_pattern(bytes, rank * 1000 + t * 100 + round);
          std::vector<uint8_t> in(bytes);
          weft::Request s = weft::isend(weft::view(out), 1 - rank, t);
          weft::recv(weft::view(in), 1 - rank, t);
          s.wait();
          if (in != byte_pattern(bytes, (1 - rank) * 1000 + t * 100 + round)) ++wrong;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
    weft::destroy_process_group();
  }));
}

TEST(PointToPoint, SixteenProcessesOnTwoCores) {
  expect_all_succeeded(run_ranks(16, [](int rank) {
    weft::init_process_group();
    int n = weft::get_world_size();
    int64_t token = rank, got = -1;
    // A ring shift: everyone sends right and receives from the left.
    weft::Request s = weft::isend(weft::view(std::span(&token, 1)), (rank + 1) % n, 0);
    weft::recv(weft::view(std::span(&got, 1)), (rank + n - 1) % n, 0);
    s.wait();
    EXPECT_EQ(got, (rank + n - 1) % n);
    weft::destroy_process_group();
  }));
}

}  // namespace

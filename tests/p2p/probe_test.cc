// Probing between real processes: what probe/iprobe report for eager, rendezvous and
// self messages, that they leave the message for the next matching receive (in order),
// and their errors: bad arguments, timeouts, dead peers.
#include <gtest/gtest.h>
#include <signal.h>

#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "tests/harness/peer_signals.h"
#include "weft/weft.h"

namespace {

using weft::DType;
using weft::kAnySource;
using weft::kAnyTag;
using weft::ProbeResult;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::signal_peer;
using weft::testing::wait_for_peer;
using namespace std::chrono_literals;

void expect_found(const ProbeResult& r, int source, int tag, uint64_t bytes, DType dtype,
                  const char* what) {
  EXPECT_EQ(r.source, source) << what;
  EXPECT_EQ(r.tag, tag) << what;
  EXPECT_EQ(r.bytes, bytes) << what;
  EXPECT_EQ(static_cast<int>(r.dtype), static_cast<int>(dtype)) << what;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Probe, IprobeFindsNothingBeforeASend) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int64_t value = 0;
    if (rank == 0) {
      // Rank 1 sends only once told to, so nothing can have arrived yet.
      EXPECT_FALSE(weft::iprobe().has_value());
      EXPECT_FALSE(weft::iprobe(1, 5).has_value());
      signal_peer(1, 1);
      expect_found(weft::probe(1, 5), 1, 5, 8, DType::kInt64, "after the send");
      EXPECT_EQ(weft::recv(weft::view(std::span(&value, 1)), 1, 5), 1);
      EXPECT_EQ(value, 77);
      EXPECT_FALSE(weft::iprobe().has_value()) << "the received message is still reported";
    } else {
      wait_for_peer(0, 1);
      value = 77;
      weft::send(weft::view(std::span(&value, 1)), 0, 5);
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, ReportsSourceTagBytesAndDtypeOfSmallLargeAndEmptyMessages) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<int32_t> small(100);
    std::vector<float> large(1 << 20);  // 4 MiB: announced by RTS, moved only once received
    std::vector<uint8_t> empty;
    if (rank == 1) {
      std::iota(small.begin(), small.end(), 0);
      std::iota(large.begin(), large.end(), 0.0f);
      weft::Request r = weft::isend(weft::view(large), 0, 4);
      weft::send(weft::view(small), 0, 3);
      weft::send(weft::view(empty), 0, 6);
      r.wait();
    } else {
      expect_found(weft::probe(kAnySource, 4), 1, 4, 4u << 20, DType::kFloat32, "large");
      expect_found(weft::probe(1, 3), 1, 3, 400, DType::kInt32, "small");
      expect_found(weft::probe(1, 6), 1, 6, 0, DType::kUInt8, "empty");
      // The large message was sent first, so it is still the first of any tag.
      expect_found(weft::probe(1, kAnyTag), 1, 4, 4u << 20, DType::kFloat32, "first of any tag");
      EXPECT_EQ(weft::recv(weft::view(small), 1, 3), 1);
      EXPECT_EQ(small[99], 99);
      weft::Request r = weft::irecv(weft::view(large), 1, 4);
      r.wait();
      EXPECT_EQ(r.bytes(), 4u << 20);
      EXPECT_EQ(large[12345], 12345.0f);
      EXPECT_EQ(large.back(), static_cast<float>(large.size() - 1));
      EXPECT_EQ(weft::recv(weft::view(empty), 1, 6), 1);
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, SeesMessagesToSelf) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<double> small(10, 2.5), got_small(10);
    std::vector<uint8_t> large(1 << 20, 0x3C), got_large(1 << 20);
    weft::send(weft::view(small), rank, 1);                     // buffered
    weft::Request s = weft::isend(weft::view(large), rank, 2);  // waits for its receive
    expect_found(weft::probe(rank, 2), rank, 2, 1 << 20, DType::kUInt8, "large to self");
    auto found = weft::iprobe(kAnySource, 1);
    ASSERT_TRUE(found.has_value());
    expect_found(*found, rank, 1, 80, DType::kFloat64, "small to self");
    EXPECT_FALSE(s.is_completed()) << "probing took the large message";
    weft::recv(weft::view(got_large), rank, 2);
    weft::recv(weft::view(got_small), rank, 1);
    s.wait();
    EXPECT_EQ(got_small, small);
    EXPECT_EQ(got_large, large);
    weft::destroy_process_group();
  }));
}

TEST(Probe, AnySourceAnyTagAmongSeveralSendersThenRecvTakesTheProbedMessage) {
  // Three senders, each with tags 0 and 1 in turn and every third message large: each
  // any-source, any-tag probe must report the next message of some sender, and a
  // receive for that source and tag must get exactly that message.
  constexpr int kPerSender = 12;
  expect_all_succeeded(run_ranks(4, [](int rank) {
    weft::init_process_group();
    auto count_of = [](int k) { return k % 3 == 2 ? size_t{25000} : size_t{2}; };  // int64s
    if (rank == 0) {
      std::vector<int> next(4, 0);
      for (int i = 0; i < 3 * kPerSender; ++i) {
        ProbeResult r = weft::probe();
        ASSERT_GE(r.source, 1);
        ASSERT_LE(r.source, 3);
        const int k = next[r.source]++;
        ASSERT_EQ(r.tag, k % 2) << "message " << k << " of rank " << r.source << " overtaken";
        ASSERT_EQ(r.bytes, count_of(k) * 8) << "message " << k << " of rank " << r.source;
        ASSERT_EQ(r.dtype, DType::kInt64);
        std::vector<int64_t> got(count_of(k));
        ASSERT_EQ(weft::recv(weft::view(got), r.source, r.tag), r.source);
        ASSERT_EQ(got[0], r.source);
        ASSERT_EQ(got[1], k) << "the receive took another message than the probed one";
      }
      EXPECT_EQ(next, (std::vector<int>{0, kPerSender, kPerSender, kPerSender}));
      EXPECT_FALSE(weft::iprobe().has_value());
    } else {
      std::vector<std::vector<int64_t>> out;
      std::vector<weft::Request> requests;
      for (int k = 0; k < kPerSender; ++k) {
        out.emplace_back(count_of(k), -1);
        out.back()[0] = rank;
        out.back()[1] = k;
      }
      for (int k = 0; k < kPerSender; ++k)
        requests.push_back(weft::isend(weft::view(out[k]), 0, k % 2));
      for (auto& r : requests) r.wait();
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, MessagesStayQueuedInOrderUntilReceived) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int32_t a = 0;
    std::vector<int32_t> b(2), c(1 << 18), d(4);  // c: 1 MiB, by rendezvous
    if (rank == 1) {
      a = 80;
      b = {70, 71};
      std::iota(c.begin(), c.end(), 0);
      d = {1, 2, 3, 4};
      weft::send(weft::view(std::span(&a, 1)), 0, 8);
      weft::send(weft::view(b), 0, 7);
      weft::Request rc = weft::isend(weft::view(c), 0, 7);
      weft::send(weft::view(d), 0, 8);
      rc.wait();
    } else {
      // Queued now: a (tag 8), b (7), c (7), d (8).
      expect_found(weft::probe(1, 7), 1, 7, 8, DType::kInt32, "b");
      expect_found(weft::probe(1, kAnyTag), 1, 8, 4, DType::kInt32, "a, the first");
      EXPECT_EQ(weft::recv(weft::view(b), 1, 7), 1);
      EXPECT_EQ(b, (std::vector<int32_t>{70, 71}));
      expect_found(weft::probe(1, 7), 1, 7, 1 << 20, DType::kInt32, "c, after b");
      expect_found(weft::probe(), 1, 8, 4, DType::kInt32, "a, still the first");
      EXPECT_EQ(weft::recv(weft::view(std::span(&a, 1))), 1);
      EXPECT_EQ(a, 80);
      expect_found(weft::probe(), 1, 7, 1 << 20, DType::kInt32, "c, now the first");
      EXPECT_EQ(weft::recv(weft::view(c), 1, 7), 1);
      EXPECT_EQ(c[1000], 1000);
      EXPECT_EQ(c.back(), (1 << 18) - 1);
      expect_found(weft::probe(), 1, 8, 16, DType::kInt32, "d, the last");
      EXPECT_EQ(weft::recv(weft::view(d), 1, 8), 1);
      EXPECT_EQ(d, (std::vector<int32_t>{1, 2, 3, 4}));
      EXPECT_FALSE(weft::iprobe().has_value());
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, IprobeDoesNotConsume) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int64_t value = rank == 1 ? 42 : 0;
    if (rank == 1) {
      weft::send(weft::view(std::span(&value, 1)), 0, 2);
      // Stays until rank 0 is done: a probe naming a rank that has left fails, as a
      // receive from it would, once nothing of its is queued.
      wait_for_peer(0, 3);
    } else {
      std::optional<ProbeResult> first;
      auto give_up = std::chrono::steady_clock::now() + 30s;
      while (!(first = weft::iprobe(1, 2)) && std::chrono::steady_clock::now() < give_up) {
      }
      ASSERT_TRUE(first.has_value()) << "iprobe never saw the message";
      expect_found(*first, 1, 2, 8, DType::kInt64, "first iprobe");
      auto second = weft::iprobe(1, 2);
      ASSERT_TRUE(second.has_value()) << "the first iprobe consumed the message";
      expect_found(*second, 1, 2, 8, DType::kInt64, "second iprobe");
      auto any = weft::iprobe();
      ASSERT_TRUE(any.has_value());
      expect_found(*any, 1, 2, 8, DType::kInt64, "any-source iprobe");
      expect_found(weft::probe(1, 2), 1, 2, 8, DType::kInt64, "probe after iprobes");
      EXPECT_EQ(weft::recv(weft::view(std::span(&value, 1)), 1, 2), 1);
      EXPECT_EQ(value, 42);
      EXPECT_FALSE(weft::iprobe(1, 2).has_value()) << "still reported after the receive";
      signal_peer(1, 3);
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, TimesOutWithTimeoutErrorAndLeavesOtherMessagesAlone) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int32_t x = 0;
    if (rank == 0) {
      expect_found(weft::probe(1, 8), 1, 8, 4, DType::kInt32, "the other tag");
      auto start = std::chrono::steady_clock::now();
      try {
        weft::probe(1, 9, weft::Group(), 300ms);
        ADD_FAILURE() << "probe returned although nothing with tag 9 was sent";
      } catch (const weft::TimeoutError& e) {
        EXPECT_TRUE(contains(e.what(), "probe by rank 0 from rank 1 (tag 9, group world)"))
            << e.what();
        EXPECT_TRUE(contains(e.what(), "timeout 300 ms")) << e.what();
      }
      EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
      EXPECT_THROW(weft::probe(kAnySource, 9, weft::Group(), 50ms), weft::TimeoutError);
      signal_peer(1, 1);
      expect_found(weft::probe(1, 9), 1, 9, 4, DType::kInt32, "tag 9 once sent");
      EXPECT_EQ(weft::recv(weft::view(std::span(&x, 1)), 1, 8), 1);
      EXPECT_EQ(x, 8);
      EXPECT_EQ(weft::recv(weft::view(std::span(&x, 1)), 1, 9), 1);
      EXPECT_EQ(x, 9);
    } else {
      x = 8;
      weft::send(weft::view(std::span(&x, 1)), 0, 8);
      wait_for_peer(0, 1);
      x = 9;
      weft::send(weft::view(std::span(&x, 1)), 0, 9);
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, ProbeOfADeadPeerFailsWithPeerError) {
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      signal_peer(2, 1);
      try {
        weft::probe(2, 0, weft::Group(), 60s);
        ADD_FAILURE() << "probe of a killed rank returned";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2);
        EXPECT_TRUE(contains(e.what(), "probe by rank 0 from rank 2 (tag 0, group world)"))
            << e.what();
        EXPECT_TRUE(contains(e.what(), "rank 2 (")) << e.what();
      }
      // Later probes of it fail at once.
      try {
        weft::iprobe(2, 0);
        ADD_FAILURE() << "iprobe of a dead rank returned";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2);
        EXPECT_TRUE(contains(e.what(), "iprobe by rank 0 from rank 2")) << e.what();
      }
      // An any-source probe begun after the crash waits for the living members, as a
      // receive posted then would; rank 1's message is found.
      EXPECT_THROW(weft::probe(kAnySource, kAnyTag, weft::Group(), 100ms), weft::TimeoutError);
      signal_peer(1, 2);
      expect_found(weft::probe(), 1, 3, 1, DType::kUInt8, "from the living rank");
      wait_for_peer(1, 3);
    }
    if (rank == 1) {
      wait_for_peer(0, 2);
      signal_peer(0, 3);
    }
    if (rank == 2) {
      wait_for_peer(0, 1);
      std::this_thread::sleep_for(100ms);  // rank 0 is probing by now
      raise(SIGKILL);
    }
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[2].signal, SIGKILL);
}

TEST(Probe, AnySourceProbeFailsWhenAMemberCrashesWhileItWaits) {
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      signal_peer(2, 1);
      try {
        weft::probe(kAnySource, kAnyTag, weft::Group(), 60s);
        ADD_FAILURE() << "an any-source probe outlived a crashed member";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2);
        EXPECT_TRUE(contains(e.what(), "probe by rank 0 from any rank (any tag, group world)"))
            << e.what();
      }
      signal_peer(1, 2);
    }
    if (rank == 1) wait_for_peer(0, 2);
    if (rank == 2) {
      wait_for_peer(0, 1);
      std::this_thread::sleep_for(100ms);  // rank 0 is probing by now
      raise(SIGKILL);
    }
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[2].signal, SIGKILL);
}

TEST(Probe, ArgumentsAreCheckedAndGroupsKeptApart) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    auto expect_invalid = [](auto&& call, const std::string& text) {
      try {
        call();
        ADD_FAILURE() << "accepted: " << text;
      } catch (const weft::InvalidArgument& e) {
        EXPECT_TRUE(contains(e.what(), text)) << e.what();
      }
    };
    const std::string me = std::to_string(rank);
    expect_invalid([] { weft::iprobe(2); },
                   "iprobe (rank " + me +
                       " of group world): src 2 (world rank) is outside [0, 2) (or kAnySource)");
    expect_invalid([] { weft::probe(-2); },
                   "probe (rank " + me + " of group world): src -2 (world rank) is outside");
    expect_invalid(
        [] { weft::probe(0, -3); },
        "probe (rank " + me + " of group world): tag -3 is negative (only kAnyTag may be)");
    expect_invalid([] { weft::iprobe(kAnySource, -5); }, "tag -5 is negative");

    weft::Group only0 = weft::new_group({0});
    int32_t x = 5;
    if (rank == 1) {
      expect_invalid([&] { weft::iprobe(kAnySource, kAnyTag, only0); },
                     "this process is not a member of the group");
      expect_invalid([&] { weft::probe(0, 0, only0); }, "probe (rank -1 of group");
      weft::send(weft::view(std::span(&x, 1)), 0, 0);
    } else {
      expect_invalid([&] { weft::probe(1, 0, only0); },
                     "src 1 (world rank) is not a member of group");
      expect_invalid([&] { weft::probe(weft::GroupRank{1}, 0, only0); },
                     "src GroupRank{1} is outside [0, 1)");
      expect_found(weft::probe(1, 0), 1, 0, 4, DType::kInt32, "in the world");
      EXPECT_FALSE(weft::iprobe(kAnySource, kAnyTag, only0).has_value())
          << "a probe of one group saw another group's message";
      EXPECT_EQ(weft::recv(weft::view(std::span(&x, 1)), 1, 0), 1);
      EXPECT_EQ(x, 5);
    }
    weft::destroy_process_group();
  }));
}

TEST(Probe, ProbeWhileAnotherThreadCommunicates) {
  // A thread blocked in probe shares the engine with the main thread's ping-pong.
  constexpr int kRounds = 50;
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int64_t ball = 0, late = 0;
    if (rank == 0) {
      std::thread prober([&] {
        expect_found(weft::probe(1, 5), 1, 5, 8, DType::kInt64, "probe on a second thread");
        EXPECT_EQ(weft::recv(weft::view(std::span(&late, 1)), 1, 5), 1);
      });
      for (int i = 0; i < kRounds; ++i) {
        ball = i;
        weft::send(weft::view(std::span(&ball, 1)), 1, 1);
        weft::recv(weft::view(std::span(&ball, 1)), 1, 2);
        EXPECT_EQ(ball, i + 1000);  // not ASSERT: the prober must still be joined
      }
      prober.join();
      EXPECT_EQ(late, 555);
    } else {
      for (int i = 0; i < kRounds; ++i) {
        weft::recv(weft::view(std::span(&ball, 1)), 0, 1);
        ball += 1000;
        weft::send(weft::view(std::span(&ball, 1)), 0, 2);
      }
      late = 555;
      weft::send(weft::view(std::span(&late, 1)), 0, 5);
    }
    weft::destroy_process_group();
  }));
}

}  // namespace

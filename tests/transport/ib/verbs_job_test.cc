// Jobs whose every link is a verbs link (WEFT_TRANSPORTS=ib) over the soft verbs device,
// through the public API: credit under floods from both sides, registrations under
// load with and without the cache, a bad rkey and a peer dying mid-write ending in
// errors that name the peer, sleeping ranks woken by the doorbell, zero-byte and
// large messages, and the choice of links. (Messages over 4 GiB: large_message_test_ib.)
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/byte_pattern.h"
#include "tests/harness/multiprocess.h"
#include "tests/harness/peer_signals.h"
#include "weft/weft.h"

namespace {

using namespace std::chrono_literals;
using weft::testing::byte_pattern;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::RunOptions;
using weft::testing::signal_peer;
using weft::testing::wait_for_peer;
using Clock = std::chrono::steady_clock;

RunOptions verbs_only(std::map<std::string, std::string> more = {}) {
  RunOptions options;
  options.env = {{"WEFT_TRANSPORTS", "ib"}, {"WEFT_TEST_SOFT_VERBS", "1"}};
  for (auto& [key, value] : more) options.env[key] = value;
  return options;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(VerbsJob, EveryPeerGetsAVerbsLinkAndSaysWhy) {
  auto ranks = run_ranks(
      3,
      [](int rank) {
        weft::init_process_group();
        int32_t token = rank;
        weft::all_reduce(weft::view(std::span(&token, 1)));
        EXPECT_EQ(token, 3);
        weft::destroy_process_group();
      },
      verbs_only({{"WEFT_DEBUG", "INFO"}}));
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, ": ib softib0:1 qpn "), 2) << r.output;
    EXPECT_EQ(count(r.output, "(RoCE v2 gid 1, mtu 4096) (same host; WEFT_TRANSPORTS names ib)"), 2)
        << r.output;
  }
}

TEST(VerbsJob, SharedMemoryServesLocalPeersWhenItIsListedToo) {
  RunOptions options = verbs_only({{"WEFT_DEBUG", "INFO"}});
  options.env["WEFT_TRANSPORTS"] = "shm,ib";
  auto ranks = run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        int32_t token = rank;
        weft::all_reduce(weft::view(std::span(&token, 1)));
        EXPECT_EQ(token, 1);
        weft::destroy_process_group();
      },
      options);
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, ": shm "), 1) << r.output;
    EXPECT_EQ(count(r.output, ": ib softib0"), 0) << r.output;
  }
}

// Thousands of small messages from both ranks at once, before either receives, with
// four receive buffers a peer: every message waits for credit, which comes back while
// both ranks only send, and all arrive intact and in order.
TEST(VerbsJob, FloodsFromBothSidesAtOnceArriveInOrder) {
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        constexpr int kMessages = 3000;
        const int peer = 1 - rank;
        std::vector<std::vector<uint8_t>> out, in;
        std::vector<weft::Request> sends, receives;
        for (int i = 0; i < kMessages; ++i) {
          out.push_back(byte_pattern(8 + (i * 37) % 300, i + rank * kMessages));
          in.emplace_back(8 + (i * 37) % 300);
        }
        for (int i = 0; i < kMessages; ++i)
          sends.push_back(weft::isend(weft::view(out[i]), peer, 5));
        for (int i = 0; i < kMessages; ++i)
          receives.push_back(weft::irecv(weft::view(in[i]), peer, 5));
        for (auto& s : sends) s.wait(60s);
        for (auto& r : receives) r.wait(60s);
        for (int i = 0; i < kMessages; ++i) {
          ASSERT_EQ(in[i], byte_pattern(in[i].size(), i + peer * kMessages)) << "message " << i;
        }
        weft::destroy_process_group();
      },
      verbs_only({{"WEFT_IB_RECV_BUFFERS", "4"}, {"WEFT_IB_EAGER_BYTES", "512"}})));
}

// Large messages (by RDMA WRITE, each registered at both ends) from buffers used in
// turn, both ways. `registrations` are the job's WEFT_IB_REG_CACHE* settings. More
// transfers than the soft device's 8192 registrations a process: a registration that
// outlived its use, cached or not, would exhaust them and fail the job.
void exchange_many_large_messages(std::map<std::string, std::string> registrations) {
  registrations["WEFT_IB_EAGER_BYTES"] = "1K";  // messages from 2 KiB go by rendezvous
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        const int peer = 1 - rank;
        constexpr int kBuffers = 8;
        constexpr size_t kLargest = 9 << 10;
        std::vector<std::vector<uint8_t>> buffers(kBuffers, std::vector<uint8_t>(kLargest));
        for (int i = 0; i < 5000; ++i) {
          // Another buffer and length each time, both ways.
          const size_t bytes = (2 << 10) + (i * 37) % 7000;
          std::vector<uint8_t>& mine = buffers[(i * 3) % kBuffers];
          std::vector<uint8_t>& theirs = buffers[(i * 5 + 1) % kBuffers];
          const std::vector<uint8_t> sent = byte_pattern(bytes, i * 2 + rank);
          std::copy(sent.begin(), sent.end(), mine.begin());
          weft::Request r = weft::irecv(weft::view(theirs), peer, 1);
          weft::send(weft::view(std::span(mine.data(), bytes)), peer, 1);
          r.wait(60s);
          ASSERT_EQ(r.bytes(), bytes);
          const std::vector<uint8_t> want = byte_pattern(bytes, i * 2 + peer);
          ASSERT_TRUE(std::equal(want.begin(), want.end(), theirs.begin())) << "round " << i;
        }
        weft::destroy_process_group();
      },
      verbs_only(registrations)));
}

TEST(VerbsJob, RegistrationCacheEvictsUnderLoad) {
  exchange_many_large_messages({{"WEFT_IB_REG_CACHE", "1"},
                                {"WEFT_IB_REG_CACHE_ENTRIES", "2"},
                                {"WEFT_IB_REG_CACHE_BYTES", "8K"}});
}

TEST(VerbsJob, UserBuffersAreRegisteredPerTransferByDefault) { exchange_many_large_messages({}); }

// The first RDMA WRITE of rank 0 goes out with a wrong key: both ranks' operations fail
// with errors naming the other rank, well within their timeout.
TEST(VerbsJob, BadRkeyEndsInAnErrorNamingThePeer) {
  RunOptions options = verbs_only();
  options.rank_env = [](int rank) {
    std::map<std::string, std::string> env;
    if (rank == 0) env["WEFT_TEST_SOFT_VERBS_FAULT"] = "bad_rkey_after:0";
    return env;
  };
  auto ranks = run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        std::vector<uint8_t> big(1 << 20, 7);
        const auto start = Clock::now();
        try {
          if (rank == 0) {
            // The failing write is the payload's, or the flag of a sleep while waiting
            // for rank 1 to match: an RDMA WRITE either way.
            weft::send(weft::view(big), 1, 1, weft::Group(), 60s);
          } else {
            weft::recv(weft::view(big), 0, 1, weft::Group(), 60s);
          }
          ADD_FAILURE() << "a transfer with a bad rkey succeeded";
        } catch (const weft::PeerError& e) {
          const std::string what = e.what();
          EXPECT_EQ(e.peer(), 1 - rank) << what;
          EXPECT_NE(what.find("verbs link to rank " + std::to_string(1 - rank)), std::string::npos)
              << what;
          if (rank == 0) {
            EXPECT_NE(what.find("RDMA WRITE"), std::string::npos) << what;
            EXPECT_NE(what.find("remote access error (IBV_WC_REM_ACCESS_ERR)"), std::string::npos)
                << what;
          }
        }
        EXPECT_LT(Clock::now() - start, 20s);
        weft::destroy_process_group();
      },
      options);
  expect_all_succeeded(ranks);
}

// Rank 1 dies while rank 0 writes a large message into its memory: rank 0's send fails
// naming rank 1, long before its timeout.
TEST(VerbsJob, PeerDyingMidWriteFailsTheWriterNamingIt) {
  auto ranks = run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        std::vector<uint8_t> big(256u << 20, 1);
        if (rank == 1) {
          weft::Request r = weft::irecv(weft::view(big), 0, 0);
          signal_peer(0, 1);
          std::this_thread::sleep_for(5ms);
          raise(SIGKILL);
        }
        wait_for_peer(1, 1);
        const auto start = Clock::now();
        try {
          // Large enough that the kill lands among its pieces.
          for (int i = 0; i < 100; ++i) weft::send(weft::view(big), 1, 0, weft::Group(), 120s);
          ADD_FAILURE() << "sends to a killed rank succeeded";
        } catch (const weft::PeerError& e) {
          EXPECT_EQ(e.peer(), 1) << e.what();
          EXPECT_NE(std::string(e.what()).find("rank 1 ("), std::string::npos) << e.what();
        }
        EXPECT_LT(Clock::now() - start, 30s);
        weft::destroy_process_group();
      },
      verbs_only());
  EXPECT_EQ(ranks[1].signal, SIGKILL);
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
}

// With no spin, every wait sleeps in epoll at once: each message must ring its
// receiver's doorbell, or it would wait for the engine's 10 ms re-check.
TEST(VerbsJob, SleepingRanksAreWokenByTheDoorbell) {
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        const int peer = 1 - rank;
        int64_t value = 0;
        std::vector<double> round_trips;
        for (int i = 0; i < 101; ++i) {
          const auto start = Clock::now();
          if (rank == 0) {
            value = i;
            weft::send(weft::view(std::span(&value, 1)), peer, 1);
            weft::recv(weft::view(std::span(&value, 1)), peer, 1);
            EXPECT_EQ(value, i + 1);
          } else {
            weft::recv(weft::view(std::span(&value, 1)), peer, 1);
            ++value;
            weft::send(weft::view(std::span(&value, 1)), peer, 1);
          }
          round_trips.push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        }
        std::sort(round_trips.begin(), round_trips.end());
        if (rank == 0) {
          EXPECT_LT(round_trips[50], 5.0) << "median round trip, ms";
        }
        weft::destroy_process_group();
      },
      verbs_only({{"WEFT_SPIN_US", "0"}})));
}

TEST(VerbsJob, ZeroByteAndLargeMessagesBothWays) {
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        const int peer = 1 - rank;
        std::vector<uint8_t> none;
        weft::Request r0 = weft::irecv(weft::view(none), peer, 1);
        weft::send(weft::view(none), peer, 1);
        r0.wait(30s);
        EXPECT_EQ(r0.bytes(), 0u);
        // Pieces of 16 MiB, the last one short.
        const size_t bytes = (64u << 20) + 7;
        const std::vector<uint8_t> mine = byte_pattern(bytes, rank);
        std::vector<uint8_t> theirs(bytes);
        weft::Request r = weft::irecv(weft::view(theirs), peer, 2);
        weft::send(weft::view(mine), peer, 2);
        r.wait(60s);
        EXPECT_EQ(r.bytes(), bytes);
        EXPECT_TRUE(theirs == byte_pattern(bytes, peer)) << "the large message arrived damaged";
        weft::destroy_process_group();
      },
      verbs_only()));
}

}  // namespace

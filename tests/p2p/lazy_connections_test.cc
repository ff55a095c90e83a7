// Connections made on first use (WEFT_CONNECT=lazy, transport/tcp/lazy_connections.h):
// a rank connects to the peers it talks to and no others, and pairs whose ranks dial
// each other at the same moment end up with one connection each. The other tests run
// over lazy connections too (the _lazy variants of tests/transport_variants.bzl); these
// check what only the logs show.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

RunOptions lazy_over_tcp() {
  RunOptions o;
  o.env["WEFT_TRANSPORTS"] = "tcp";
  o.env["WEFT_CONNECT"] = "lazy";
  o.env["WEFT_DEBUG"] = "INFO";
  return o;
}

// How many lines of `output` contain `text`.
int lines_with(const std::string& output, const std::string& text) {
  int n = 0;
  for (size_t at = output.find(text); at != std::string::npos; at = output.find(text, at + 1)) {
    ++n;
  }
  return n;
}

TEST(LazyConnections, ARankConnectsOnlyToThePeersItTalksTo) {
  auto ranks = run_ranks(
      4,
      [](int rank) {
        init_process_group();
        int32_t value = rank;
        if (rank == 0) {
          send(view(std::span(&value, 1)), 1);
          recv(view(std::span(&value, 1)), 1);
          EXPECT_EQ(value, 11);
        } else if (rank == 1) {
          recv(view(std::span(&value, 1)), 0);
          EXPECT_EQ(value, 0);
          value = 11;
          send(view(std::span(&value, 1)), 0);
        }
        destroy_process_group();
      },
      lazy_over_tcp());
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(lines_with(r.output, "3 of 3 peers connected on first use"), 1) << r.output;
    // Ranks 0 and 1 made one link each, to each other; ranks 2 and 3 none.
    EXPECT_EQ(lines_with(r.output, "made on first use"), r.rank < 2 ? 1 : 0) << r.output;
  }
}

// Every rank sends to every other as its first traffic, so most pairs dial each other
// at the same moment: each rank still has one link per peer, no connection is refused
// loudly, and every message arrives.
TEST(LazyConnections, RanksThatDialEachOtherAtOnceEndWithOneLinkPerPair) {
  constexpr int kRanks = 6;
  auto ranks = run_ranks(
      kRanks,
      [](int rank) {
        init_process_group();
        std::vector<int32_t> out(kRanks, rank), in(kRanks, -1);
        std::vector<Request> requests;
        for (int peer = 0; peer < kRanks; ++peer) {
          if (peer == rank) continue;
          requests.push_back(irecv(view(std::span(&in[peer], 1)), peer, 7));
          requests.push_back(isend(view(std::span(&out[peer], 1)), peer, 7));
        }
        wait_all(requests);
        for (int peer = 0; peer < kRanks; ++peer) {
          if (peer != rank) EXPECT_EQ(in[peer], peer) << "from rank " << peer;
        }
        destroy_process_group();
      },
      lazy_over_tcp());
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(lines_with(r.output, "made on first use"), kRanks - 1) << r.output;
    EXPECT_EQ(lines_with(r.output, "refused a connection"), 0) << r.output;
  }
}

// A peer that died before anyone connected to it: a receive from it connects, is
// refused by the dead port, and fails naming the peer, long before its timeout.
TEST(LazyConnections, AReceiveFromAPeerThatDiedBeforeAnyConnectionFailsNamingIt) {
  auto ranks = run_ranks(
      3,
      [](int rank) {
        init_process_group();
        if (rank == 2) _exit(0);
        if (rank == 0) {
          // Rank 2 is gone by now: its process has exited and closed its port.
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          int32_t value = 0;
          try {
            recv(view(std::span(&value, 1)), 2, kAnyTag, Group(), std::chrono::seconds(60));
            ADD_FAILURE() << "a receive from a dead rank completed";
          } catch (const PeerError& e) {
            EXPECT_EQ(e.peer(), 2) << e.what();
            EXPECT_NE(std::string(e.what()).find("could not connect to rank 2"), std::string::npos)
                << e.what();
          }
        }
        _exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      lazy_over_tcp());
  expect_all_succeeded(ranks);
}

}  // namespace
}  // namespace weft::testing

// Connections made on first use (WEFT_CONNECT=lazy, transport/tcp/lazy_connections.h):
// a rank connects to the peers it talks to and no others, and pairs whose ranks dial
// each other at the same moment end up with one connection each. The other tests run
// over lazy connections too (the _lazy variants of tests/transport_variants.bzl); these
// check what only the logs show.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
          if (peer != rank) {
            EXPECT_EQ(in[peer], peer) << "from rank " << peer;
          }
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

// Marks, outside weft, that a rank has left: the ranks of the tests below must not
// connect before it leaves, which a weft message would do. The parent makes the folder;
// the ranks (other processes) find the mark's path in their environment.
class LeftMarker {
 public:
  LeftMarker() {
    if (is_rank_process()) return;
    char dir[] = "/tmp/weft_lazy_left_XXXXXX";
    if (::mkdtemp(dir) != nullptr) dir_ = dir;
    EXPECT_FALSE(dir_.empty()) << "mkdtemp failed";
  }
  ~LeftMarker() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  RunOptions options() const {
    RunOptions o = lazy_over_tcp();
    o.env[kVariable] = dir_ + "/left";
    return o;
  }
  // In a rank:
  static void set() {
    std::FILE* f = std::fopen(path().c_str(), "w");
    if (f) std::fclose(f);
  }
  static void wait() {
    for (int i = 0; i < 6000 && !std::filesystem::exists(path()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(std::filesystem::exists(path())) << "the other rank never left";
  }

 private:
  static constexpr const char* kVariable = "WEFT_TEST_LEFT_MARKER";
  static std::string path() {
    const char* p = std::getenv(kVariable);
    return p ? p : "";
  }
  std::string dir_;
};

// Rank 0 receives from rank 1 only after rank 1 has left, so no link ever carried rank
// 1's goodbye; the departure rank 1 posted still tells rank 0 that it left in good order.
TEST(LazyConnections, AReceiveFromAPeerThatLeftBeforeAnyConnectionSaysItLeft) {
  LeftMarker left;
  auto ranks = run_ranks(
      2,
      [](int rank) {
        init_process_group();
        if (rank == 1) {
          destroy_process_group();
          LeftMarker::set();
          return;
        }
        LeftMarker::wait();
        int32_t value = 0;
        try {
          recv(view(std::span(&value, 1)), 1, kAnyTag, Group(), std::chrono::seconds(60));
          ADD_FAILURE() << "a receive from a rank that left completed";
        } catch (const PeerError& e) {
          EXPECT_EQ(e.peer(), 1) << e.what();
          EXPECT_NE(
              std::string(e.what()).find("has left the job (it called destroy_process_group)"),
              std::string::npos)
              << e.what();
        }
        destroy_process_group();
      },
      left.options());
  expect_all_succeeded(ranks);
}

// Rank 2 dies; rank 1 finds out and leaves; only then does rank 0, never connected to
// either, receive from rank 1. It must blame rank 2, as it would had rank 1's goodbye
// reached it over a link (Failures.AFailureSeenThroughALeavingPeerNamesTheRootCause).
TEST(LazyConnections, APeerThatLeftAfterAFailureBeforeAnyConnectionNamesTheRootCause) {
  LeftMarker left;
  auto ranks = run_ranks(
      3,
      [](int rank) {
        init_process_group();
        if (rank == 2) _exit(0);  // without a goodbye, as a crash
        int32_t value = 0;
        if (rank == 1) {
          EXPECT_THROW(
              recv(view(std::span(&value, 1)), 2, kAnyTag, Group(), std::chrono::seconds(60)),
              PeerError);
          destroy_process_group();
          LeftMarker::set();
          return;
        }
        LeftMarker::wait();
        try {
          recv(view(std::span(&value, 1)), 1, kAnyTag, Group(), std::chrono::seconds(60));
          ADD_FAILURE() << "a receive from a rank that left completed";
        } catch (const PeerError& e) {
          EXPECT_EQ(e.peer(), 2) << e.what();
          EXPECT_NE(std::string(e.what()).find("has left the job after it lost rank 2"),
                    std::string::npos)
              << e.what();
        }
        destroy_process_group();
      },
      left.options());
  expect_all_succeeded(ranks);
}

}  // namespace
}  // namespace weft::testing

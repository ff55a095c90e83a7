// Steady-state point-to-point messages allocate nothing: blocking sends and receives
// (the receive either finds its message waiting or waits for it), and requests of
// isend/irecv, which come from the request pool. Run over each transport.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "tools/bench/allocation_counter.h"
#include "weft/weft.h"

namespace {

using weft::bench::allocations_per_operation;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;

constexpr int kWarmUp = 500;
constexpr int kMeasured = 2000;
constexpr int kBurst = 8;

TEST(Allocations, NoneInSteadyStateSmallMessages) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    const int peer = 1 - rank;
    std::vector<int64_t> message(1, rank);  // 8 bytes
    std::vector<int64_t> burst(8);          // 64 bytes

    // Ping-pong: each receive is posted before its message arrives, or finds it waiting.
    auto ping_pong = [&] {
      if (rank == 0) {
        weft::send(weft::view(message), peer, 1);
        weft::recv(weft::view(message), peer, 1);
      } else {
        weft::recv(weft::view(message), peer, 1);
        weft::send(weft::view(message), peer, 1);
      }
    };
    // Bursts: messages queue as unexpected before their receives, taken by any-source
    // receives.
    auto bursts = [&] {
      if (rank == 0) {
        for (int i = 0; i < kBurst; ++i) weft::send(weft::view(burst), peer, 2 + i % 2);
        weft::recv(weft::view(message), peer, 1);
      } else {
        for (int i = 0; i < kBurst; ++i) weft::recv(weft::view(burst), weft::kAnySource, 2 + i % 2);
        weft::send(weft::view(message), peer, 1);
      }
    };
    // Requests of isend/irecv come from the pool.
    auto requests = [&] {
      weft::Request r = weft::irecv(weft::view(burst), peer, 3);
      weft::Request s = weft::isend(weft::view(message), peer, 3);
      s.wait();
      r.wait();
    };

    // Warm-up: every path once, including messages that wait unexpected on both sides
    // (whether a ping-pong's message is early depends on timing), so that the spare
    // messages, queues and pools have reached their working size.
    for (int i = 0; i < kBurst; ++i) weft::send(weft::view(burst), peer, 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int i = 0; i < kBurst; ++i) weft::recv(weft::view(burst), peer, 4);
    for (int i = 0; i < kWarmUp; ++i) {
      ping_pong();
      bursts();
      requests();
    }

    double per_exchange = allocations_per_operation(kMeasured, [&] {
      for (int i = 0; i < kMeasured; ++i) ping_pong();
    });
    EXPECT_EQ(per_exchange, 0.0) << "heap allocations per blocking send and receive";
    double per_burst = allocations_per_operation(kMeasured, [&] {
      for (int i = 0; i < kMeasured; ++i) bursts();
    });
    EXPECT_EQ(per_burst, 0.0) << "heap allocations per burst of unexpected messages";
    double per_request_pair = allocations_per_operation(kMeasured, [&] {
      for (int i = 0; i < kMeasured; ++i) requests();
    });
    EXPECT_EQ(per_request_pair, 0.0) << "heap allocations per isend and irecv";
    // Neither leaves while the other still counts: a peer's goodbye is not free.
    ping_pong();
    weft::destroy_process_group();
  }));
}

}  // namespace

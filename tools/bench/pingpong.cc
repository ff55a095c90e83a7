#include "tools/bench/pingpong.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "tools/bench/allocation_counter.h"
#include "tools/bench/raw_socket.h"
#include "weft/weft.h"

namespace weft::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Enough iterations for a stable figure at small sizes, bounded time at large ones.
int iterations_for(uint64_t bytes, int requested) {
  if (requested > 0) return requested;
  if (bytes <= (64u << 10)) return 2000;
  return static_cast<int>(std::clamp<uint64_t>((512ull << 20) / bytes, 8, 2000));
}

int window_for(uint64_t bytes, int requested) {
  return static_cast<int>(std::clamp<uint64_t>((64ull << 20) / std::max<uint64_t>(bytes, 1), 1,
                                               static_cast<uint64_t>(requested)));
}

// Timings are taken in batches, weft's and the baseline's in alternation so that both
// see the same machine conditions, and the median batch of each is reported: on a
// shared machine a descheduled process can stall a batch by milliseconds, which would
// swamp a mean, and a machine can change speed during a run.
constexpr int kBatches = 15;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Alternation {
  double a_seconds, b_seconds;  // the median batch of each
  uint64_t a_allocations;       // heap allocations of all of a's timed batches
};

// Runs `batch_a` and `batch_b` alternately `batches` times each (after one warm-up of
// each) and returns the median seconds of each, and what a's timed batches allocated.
template <typename A, typename B>
Alternation alternate(int batches, A batch_a, B batch_b) {
  batch_a();
  batch_b();
  std::vector<double> a, b;
  a.reserve(batches);
  b.reserve(batches);
  uint64_t a_allocations = 0;
  for (int i = 0; i < batches; ++i) {
    const uint64_t allocations_before = allocations();
    auto start = Clock::now();
    batch_a();
    a.push_back(seconds_since(start));
    a_allocations += allocations() - allocations_before;
    start = Clock::now();
    batch_b();
    b.push_back(seconds_since(start));
  }
  return {median(a), median(b), a_allocations};
}

// `count` ping-pong exchanges of one rank with `send` and `recv` of the whole buffer.
template <typename Send, typename Recv>
auto pingpong(int rank, int count, Send send, Recv recv) {
  return [=] {
    for (int i = 0; i < count; ++i) {
      if (rank == 0) {
        send();
        recv();
      } else {
        recv();
        send();
      }
    }
  };
}

}  // namespace

std::vector<PingPongRow> run_pingpong(const PingPongOptions& options) {
  const int rank = weft::get_rank();
  const int peer = 1 - rank;
  RawSocketPair raw(rank);
  std::vector<uint8_t> out(options.max_bytes), in(options.max_bytes), ack(1);
  // Touch every page now so that page faults are not timed.
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(i * 7 + 1);
  std::memset(in.data(), 0, in.size());

  std::vector<PingPongRow> rows;
  if (rank == 0) {
    std::printf("# weft-bench pingpong: 2 ranks, weft vs. a raw TCP socket in the same run\n");
    std::printf(
        "# allocs/rt: weft's heap allocations per round trip; allocs/msg: per message of the "
        "streaming window (its acknowledgement included); the larger of the two ranks'\n");
    std::printf("# %12s %10s %10s %7s %10s %10s %7s %6s %9s %10s\n", "bytes", "weft_us", "raw_us",
                "ratio", "weft_GB/s", "raw_GB/s", "ratio", "wrong", "allocs/rt", "allocs/msg");
    std::fflush(stdout);
  }
  for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= 2) {
    const int iters = iterations_for(bytes, options.iterations);
    const int window = window_for(bytes, options.window);
    const int rounds = std::clamp(iters / window, 5, 31);
    weft::Tensor out_t(out.data(), bytes, DType::kUInt8), in_t(in.data(), bytes, DType::kUInt8);
    weft::Tensor ack_t(ack.data(), 1, DType::kUInt8);
    PingPongRow row{bytes, 0, 0, 0, 0, 0, 0, 0};

    const int per_batch = std::max(1, iters / kBatches);
    auto [weft_s, raw_s, weft_allocations] = alternate(
        kBatches,
        pingpong(
            rank, per_batch, [&] { weft::send(out_t, peer); }, [&] { weft::recv(in_t, peer); }),
        pingpong(
            rank, per_batch, [&] { raw.send(out.data(), bytes); },
            [&] { raw.recv(in.data(), bytes); }));
    row.weft_us = weft_s * 1e6 / (2.0 * per_batch);
    row.baseline_us = raw_s * 1e6 / (2.0 * per_batch);
    row.allocs_per_round_trip = double(weft_allocations) / (double(kBatches) * per_batch);
    // The timed batches end with the raw socket's; one more weft exchange, untimed, into a
    // cleared buffer makes `wrong` a check of weft's data.
    std::fill(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(bytes), uint8_t{0});
    if (rank == 0) weft::send(out_t, peer, 4);
    if (rank == 1) {
      weft::recv(in_t, peer, 4);
      for (uint64_t i = 0; i < bytes; ++i) row.wrong += in[i] != out[i];
    }

    // Streaming: rank 0 keeps `window` messages in flight, rank 1 acknowledges each
    // window; bandwidth counts payload bytes only.
    std::vector<weft::Request> requests(window);
    auto weft_stream = [&] {
      for (int w = 0; w < window; ++w) {
        requests[w] = rank == 0 ? weft::isend(out_t, peer, 1) : weft::irecv(in_t, peer, 1);
      }
      for (auto& r : requests) r.wait();
      if (rank == 0) weft::recv(ack_t, peer, 2);
      if (rank == 1) weft::send(ack_t, peer, 2);
    };
    auto raw_stream = [&] {
      for (int w = 0; w < window; ++w) {
        if (rank == 0) raw.send(out.data(), bytes);
        if (rank == 1) raw.recv(in.data(), bytes);
      }
      if (rank == 0) raw.recv(ack.data(), 1);
      if (rank == 1) raw.send(ack.data(), 1);
    };
    auto [weft_window_s, raw_window_s, window_allocations] =
        alternate(rounds, weft_stream, raw_stream);
    row.window_allocs_per_message = double(window_allocations) / (double(rounds) * window);
    row.weft_gbps = static_cast<double>(bytes) * window / weft_window_s / 1e9;
    row.baseline_gbps = static_cast<double>(bytes) * window / raw_window_s / 1e9;

    // Rank 1 counted wrong bytes, and both their allocations; rank 0 prints.
    uint64_t wrong = row.wrong;
    double allocs[2] = {row.allocs_per_round_trip, row.window_allocs_per_message};
    if (rank == 1) {
      weft::send(weft::view(std::span(&wrong, 1)), 0, 3);
      weft::send(weft::view(std::span(allocs)), 0, 5);
    }
    if (rank == 0) {
      weft::recv(weft::view(std::span(&wrong, 1)), 1, 3);
      weft::recv(weft::view(std::span(allocs)), 1, 5);
      row.wrong = wrong;
      row.allocs_per_round_trip = std::max(row.allocs_per_round_trip, allocs[0]);
      row.window_allocs_per_message = std::max(row.window_allocs_per_message, allocs[1]);
      std::printf("  %12llu %10.2f %10.2f %7.2f %10.3f %10.3f %7.2f %6llu %9.2f %10.2f\n",
                  static_cast<unsigned long long>(bytes), row.weft_us, row.baseline_us,
                  row.weft_us / row.baseline_us, row.weft_gbps, row.baseline_gbps,
                  row.weft_gbps / row.baseline_gbps, static_cast<unsigned long long>(row.wrong),
                  row.allocs_per_round_trip, row.window_allocs_per_message);
      std::fflush(stdout);
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace weft::bench

// The pingpong benchmark: for each message size, half round-trip latency and one-way
// streaming bandwidth between ranks 0 and 1, for weft and for a raw socket measured in
// the same run, alternating per size so both see the same machine conditions; and how
// many heap allocations weft makes per round trip and per streamed message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::bench {

struct PingPongOptions {
  uint64_t min_bytes = 1;
  uint64_t max_bytes = 64ull << 20;
  int iterations = 0;  // per size; 0 picks by size
  int window = 64;     // messages in flight when streaming (fewer for large sizes)
  std::string json_path;
};

struct PingPongRow {
  uint64_t bytes;
  double weft_us, baseline_us;      // half round trip
  double weft_gbps, baseline_gbps;  // streaming, GB/s (10^9 bytes per second)
  uint64_t wrong;                   // corrupted bytes seen in weft's messages
  // weft's heap allocations (tools/bench/allocation_counter.h) per round trip of the
  // ping-pong, and per message of the streaming window (its acknowledgement included),
  // in the steady state: the larger of the two ranks'.
  double allocs_per_round_trip, window_allocs_per_message;
};

// Runs on both ranks; rank 0 prints the table and returns the rows.
std::vector<PingPongRow> run_pingpong(const PingPongOptions& options);

}  // namespace weft::bench

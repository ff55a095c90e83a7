// Small helpers shared by the algorithm generators.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collectives/collective_spec.h"
#include "collectives/schedule.h"

namespace weft::collectives::algorithms {

inline int mod(int a, int n) { return ((a % n) + n) % n; }
inline bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
// The largest power of two <= n (n >= 1).
inline int power_of_two_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// `count` elements split into n nearly equal consecutive blocks (the first ones larger).
inline std::vector<Block> even_blocks(uint64_t count, int n) {
  std::vector<Block> blocks(n);
  uint64_t base = count / n, extra = count % n, at = 0;
  for (int i = 0; i < n; ++i) {
    blocks[i] = {at, base + (static_cast<uint64_t>(i) < extra ? 1 : 0)};
    at += blocks[i].count;
  }
  return blocks;
}

inline uint64_t max_count(const std::vector<Block>& blocks) {
  uint64_t m = 0;
  for (const Block& b : blocks) m = std::max(m, b.count);
  return m;
}

// Calls f(offset, n) for each pipeline segment of `count` elements.
template <typename F>
void for_segments(uint64_t count, uint64_t segment, F f) {
  for (uint64_t at = 0; at < count; at += segment) f(at, std::min(segment, count - at));
}

inline Region in_block(const Block& b) { return input_region(b.offset, b.count); }
inline Region out_block(const Block& b) { return output_region(b.offset, b.count); }

// Messages of `region`, one per segment; skipped when it is empty (both ends agree).
inline void send_segments(ScheduleBuilder& b, int peer, Region region, uint64_t segment) {
  for_segments(region.count, segment,
               [&](uint64_t at, uint64_t n) { b.send(peer, region.sub(at, n)); });
}
inline void recv_segments(ScheduleBuilder& b, int peer, Region region, uint64_t segment) {
  for_segments(region.count, segment,
               [&](uint64_t at, uint64_t n) { b.recv(peer, region.sub(at, n)); });
}

// Mapping between the ranks of a group of n and the p = power_of_two_floor(n) ranks
// that remain after folding: of the first 2 * (n - p) ranks, each even one hands its
// data to the odd one after it and sits out.
struct Fold {
  int n, p, rem;
  explicit Fold(int n) : n(n), p(power_of_two_floor(n)), rem(n - power_of_two_floor(n)) {}
  // The folded rank of `rank`, or -1 if it sits out.
  int folded(int rank) const {
    if (rank < 2 * rem) return rank % 2 == 1 ? rank / 2 : -1;
    return rank - rem;
  }
  int unfolded(int folded_rank) const {
    return folded_rank < rem ? 2 * folded_rank + 1 : folded_rank + rem;
  }
};

}  // namespace weft::collectives::algorithms

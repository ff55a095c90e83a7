#include "collectives/arena/arena_algorithms.h"

#include <algorithm>
#include <cstring>

#include "collectives/call_stamp.h"
#include "collectives/reduce/reduce_kernels.h"

namespace weft::collectives::arena {
namespace {

// Elements of one round: as many as one staging buffer holds.
uint64_t round_elements(const CollectiveSpec& spec, const SharedArena& arena) {
  return std::max<uint64_t>(1, arena.buffer_bytes() / spec.element_bytes());
}

void copy_bytes(std::byte* dst, const std::byte* src, uint64_t bytes) {
  if (dst != src && bytes > 0) std::memcpy(dst, src, bytes);
}

}  // namespace

SharedArena::Signature signature(const CollectiveSpec& spec) {
  // Not a strong hash, only one that any difference is very unlikely to cancel out in;
  // it runs on every call, so it mixes words rather than bytes.
  auto mix = [](uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
  };
  // The call stamp says what every member must agree on (and leaves a rooted reduce's
  // op out, as the engine's checks do); the shape adds the counts of every form.
  uint64_t h = mix(static_cast<uint64_t>(spec.size), spec.count);
  for (const Block& b : spec.blocks) h = mix(h, b.count);
  return {call_stamp(spec), static_cast<uint32_t>(h ^ (h >> 32))};
}

void barrier(const CollectiveSpec& spec, const Buffers&, SharedArena& arena,
             SharedArena::Call& call) {
  uint32_t round = arena.begin_round(call);
  arena.publish_staged(call, round);
  for (int m = 0; m < spec.size; ++m) {
    if (m != spec.rank) arena.wait_staged(call, m, round);
  }
  arena.consume(round);
}

void broadcast(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
               SharedArena::Call& call) {
  const uint64_t size = spec.element_bytes();
  const uint64_t per_round = round_elements(spec, arena);
  for (uint64_t at = 0; at < spec.count; at += per_round) {
    const uint64_t bytes = std::min(per_round, spec.count - at) * size;
    uint32_t round = arena.begin_round(call);
    if (spec.rank == spec.root) {
      copy_bytes(arena.staging(round, bytes), buffers.input + at * size, bytes);
      arena.publish_staged(call, round);
    } else {
      arena.publish_staged(call, round);  // no data: only its signature, checked by nobody
      arena.wait_staged(call, spec.root, round);
      copy_bytes(buffers.output + at * size, arena.staged(spec.root, round, bytes), bytes);
    }
    arena.consume(round);
  }
}

void all_reduce_direct(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                       SharedArena::Call& call) {
  const uint64_t size = spec.element_bytes();
  const uint64_t per_round = round_elements(spec, arena);
  for (uint64_t at = 0; at < spec.count; at += per_round) {
    const uint64_t count = std::min(per_round, spec.count - at);
    uint32_t round = arena.begin_round(call);
    const uint64_t bytes = count * size;
    // Staged first: in place, the output about to be written is the input.
    copy_bytes(arena.staging(round, bytes), buffers.input + at * size, bytes);
    arena.publish_staged(call, round);
    for (int m = 0; m < spec.size; ++m) {
      if (m != spec.rank) arena.wait_staged(call, m, round);
    }
    std::byte* out = buffers.output + at * size;
    collectives::reduce::reduce_elements(spec.op, spec.dtype, out, arena.staged(0, round, bytes),
                                         arena.staged(1, round, bytes), count);
    for (int m = 2; m < spec.size; ++m) {
      collectives::reduce::reduce_elements(spec.op, spec.dtype, out, out,
                                           arena.staged(m, round, bytes), count);
    }
    arena.consume(round);
  }
}

void all_reduce_sliced(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                       SharedArena::Call& call) {
  const uint64_t size = spec.element_bytes();
  const uint64_t per_round = round_elements(spec, arena);
  // Slices start on cache lines where the elements allow it.
  const uint64_t align = std::max<uint64_t>(1, 64 / size);
  const int n = spec.size;
  for (uint64_t at = 0; at < spec.count; at += per_round) {
    const uint64_t count = std::min(per_round, spec.count - at);
    const uint64_t per_slice = (count + n - 1) / n;
    const uint64_t slice = (per_slice + align - 1) / align * align;
    auto slice_begin = [&](int m) { return std::min<uint64_t>(count, slice * m); };
    uint32_t round = arena.begin_round(call);
    std::byte* mine = arena.buffer(spec.rank, round);
    copy_bytes(mine, buffers.input + at * size, count * size);
    arena.publish_staged(call, round);
    for (int m = 0; m < n; ++m) {
      if (m != spec.rank) arena.wait_staged(call, m, round);
    }
    // This member's slice, reduced in its own buffer: only it reads that slice before
    // it is reduced, so the order of the others does not change anyone's result.
    const uint64_t lo = slice_begin(spec.rank), hi = slice_begin(spec.rank + 1);
    for (int m = 0; m < n && hi > lo; ++m) {
      if (m == spec.rank) continue;
      collectives::reduce::reduce_elements(spec.op, spec.dtype, mine + lo * size, mine + lo * size,
                                           arena.buffer(m, round) + lo * size, hi - lo);
    }
    arena.publish_reduced(round);
    for (int k = 0; k < n; ++k) {
      const int m = (spec.rank + k) % n;  // own slice first, then the others' in turn
      const uint64_t from = slice_begin(m), to = slice_begin(m + 1);
      if (to <= from) continue;
      if (m != spec.rank) arena.wait_reduced(call, m, round);
      std::memcpy(buffers.output + (at + from) * size, arena.buffer(m, round) + from * size,
                  (to - from) * size);
    }
    arena.consume(round);
  }
}

void reduce_direct(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                   SharedArena::Call& call) {
  const uint64_t size = spec.element_bytes();
  const uint64_t per_round = round_elements(spec, arena);
  for (uint64_t at = 0; at < spec.count; at += per_round) {
    const uint64_t count = std::min(per_round, spec.count - at);
    uint32_t round = arena.begin_round(call);
    const uint64_t bytes = count * size;
    if (spec.rank != spec.root) {
      copy_bytes(arena.staging(round, bytes), buffers.input + at * size, bytes);
      arena.publish_staged(call, round);
      arena.consume(round);
      continue;
    }
    arena.publish_staged(call, round);
    for (int m = 0; m < spec.size; ++m) {
      if (m != spec.rank) arena.wait_staged(call, m, round);
    }
    // The root's input first, read in place (in place it is the output, which the
    // first reduction overwrites); then the others in member order. Only the root
    // computes the result, so no other rank's order needs to agree with it.
    std::byte* out = buffers.output + at * size;
    const std::byte* accumulated = buffers.input + at * size;
    for (int m = 0; m < spec.size; ++m) {
      if (m == spec.root) continue;
      collectives::reduce::reduce_elements(spec.op, spec.dtype, out, accumulated,
                                           arena.staged(m, round, bytes), count);
      accumulated = out;
    }
    arena.consume(round);
  }
}

void all_gather(const CollectiveSpec& spec, const Buffers& buffers, SharedArena& arena,
                SharedArena::Call& call) {
  const uint64_t size = spec.element_bytes();
  const uint64_t per_round = round_elements(spec, arena);
  uint64_t largest = 0;
  for (const Block& b : spec.blocks) largest = std::max(largest, b.count);
  const Block& own = spec.blocks[spec.rank];
  // Not in place, this member's own block is copied once, outside the rounds.
  copy_bytes(buffers.output + own.offset * size, buffers.input, own.count * size);
  for (uint64_t at = 0; at < largest; at += per_round) {
    auto piece = [&](const Block& b) {
      return b.count > at ? std::min(per_round, b.count - at) * size : 0;
    };
    uint32_t round = arena.begin_round(call);
    copy_bytes(arena.staging(round, piece(own)), buffers.input + at * size, piece(own));
    arena.publish_staged(call, round);
    for (int k = 1; k < spec.size; ++k) {
      const int m = (spec.rank + k) % spec.size;
      arena.wait_staged(call, m, round);
      const Block& b = spec.blocks[m];
      copy_bytes(buffers.output + (b.offset + at) * size, arena.staged(m, round, piece(b)),
                 piece(b));
    }
    arena.consume(round);
  }
}

}  // namespace weft::collectives::arena

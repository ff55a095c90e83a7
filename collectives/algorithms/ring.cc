// Pipelined, chunked ring algorithms: n - 1 steps around the ring per phase, each block
// moving in segments so that reducing one segment overlaps receiving the next and a
// block is passed on while its last segments are still arriving. Per rank they send
// (n - 1) / n of the data per phase, the bandwidth optimum; latency grows with n.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {
namespace {

// Reduce-scatter of the input's `blocks` around the ring: rank r ends with the reduction
// of every rank's block r in `result`. Partial sums travel through two scratch slots.
void reduce_scatter_phase(const CollectiveSpec& spec, ScheduleBuilder& b,
                          const std::vector<Block>& blocks, Region result) {
  const int n = spec.size, r = spec.rank, right = mod(r + 1, n), left = mod(r - 1, n);
  if (n == 1) {
    b.copy(result, in_block(blocks[0]));
    return;
  }
  const uint64_t slot_count = max_count(blocks);
  Region slots[2] = {b.allocate_scratch(slot_count), b.allocate_scratch(slot_count)};
  for (int s = 0; s < n - 1; ++s) {
    const Block& outgoing = blocks[mod(r - s - 1, n)];
    const Block& incoming = blocks[mod(r - s - 2, n)];
    Region partial = s == 0 ? in_block(outgoing) : slots[(s + 1) % 2].sub(0, outgoing.count);
    send_segments(b, right, partial, spec.segment);
    Region arrived = slots[s % 2].sub(0, incoming.count);
    Region into = s == n - 2 ? result : arrived;
    for_segments(incoming.count, spec.segment, [&](uint64_t at, uint64_t len) {
      b.recv(left, arrived.sub(at, len));
      b.reduce(into.sub(at, len), input_region(incoming.offset + at, len), arrived.sub(at, len));
    });
  }
}

// All-gather of the output's `blocks` around the ring, rank r starting with block r.
void all_gather_phase(const CollectiveSpec& spec, ScheduleBuilder& b,
                      const std::vector<Block>& blocks) {
  const int n = spec.size, r = spec.rank, right = mod(r + 1, n), left = mod(r - 1, n);
  for (int s = 0; s < n - 1; ++s) {
    send_segments(b, right, out_block(blocks[mod(r - s, n)]), spec.segment);
    recv_segments(b, left, out_block(blocks[mod(r - s - 1, n)]), spec.segment);
  }
}

}  // namespace

void ring_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  std::vector<Block> blocks = even_blocks(spec.count, spec.size);
  reduce_scatter_phase(spec, b, blocks, out_block(blocks[spec.rank]));
  all_gather_phase(spec, b, blocks);
}

void ring_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b) {
  reduce_scatter_phase(spec, b, spec.blocks, output_region(0, spec.blocks[spec.rank].count));
}

void ring_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const Block& own = spec.blocks[spec.rank];
  b.copy(out_block(own), input_region(0, own.count));
  all_gather_phase(spec, b, spec.blocks);
}

// Reduce as a ring reduce-scatter followed by every rank sending its reduced block to
// the root: 2 (n - 1) / n of the data per rank instead of a tree's log2(n) times it.
void ring_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  std::vector<Block> blocks = even_blocks(spec.count, spec.size);
  const Block& own = blocks[spec.rank];
  bool at_root = spec.rank == spec.root;
  Region result = at_root ? out_block(own) : b.allocate_scratch(own.count);
  reduce_scatter_phase(spec, b, blocks, result);
  if (!at_root) {
    send_segments(b, spec.root, result, spec.segment);
    return;
  }
  for (int q = 0; q < spec.size; ++q) {
    if (q != spec.root) recv_segments(b, q, out_block(blocks[q]), spec.segment);
  }
}

}  // namespace weft::collectives::algorithms

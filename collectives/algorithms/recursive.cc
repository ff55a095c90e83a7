// Recursive doubling and halving: log2(p) exchange rounds between partners whose ranks
// differ in one bit. Groups that are not a power of two are folded first (the even one
// of each of the first 2 (n - p) pairs hands its data to its odd neighbour, which takes
// part for both, and gets the result back at the end): two extra rounds, any n.
//
// Whenever two partial results are combined, the one covering lower ranks is the left
// operand, so both partners compute exactly the same expression: the results are
// bitwise identical on every rank even where the operation is not bitwise commutative.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {
namespace {

Region whole_output(const CollectiveSpec& spec) { return output_region(0, spec.count); }

// Combines `mine` with `theirs` (a partner's partial) into `mine`, lower ranks first.
void combine(ScheduleBuilder& b, Region mine, Region theirs, bool partner_is_lower) {
  if (partner_is_lower) {
    b.reduce(mine, theirs, mine);
  } else {
    b.reduce(mine, mine, theirs);
  }
}

// Folds the group to a power of two. Returns the folded rank, or -1 if this rank sits
// out (its data went to its neighbour). The data is in the output throughout.
int fold_in(const CollectiveSpec& spec, ScheduleBuilder& b, const Fold& fold, Region tmp) {
  const int r = spec.rank;
  b.copy(whole_output(spec), input_region(0, spec.count));
  if (r < 2 * fold.rem) {
    if (r % 2 == 0) {
      b.send(r + 1, whole_output(spec));
      return -1;
    }
    b.recv(r - 1, tmp);
    combine(b, whole_output(spec), tmp, true);
  }
  return fold.folded(r);
}

// The ranks that sat out get the result from their neighbour.
void fold_out(const CollectiveSpec& spec, ScheduleBuilder& b, const Fold& fold) {
  const int r = spec.rank;
  if (r >= 2 * fold.rem) return;
  if (r % 2 == 0) {
    b.recv(r + 1, whole_output(spec));
  } else {
    b.send(r - 1, whole_output(spec));
  }
}

}  // namespace

void recursive_doubling_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  if (spec.count == 0) return;
  Fold fold(spec.size);
  Region tmp = b.allocate_scratch(spec.count);
  int me = fold_in(spec, b, fold, tmp);
  if (me >= 0) {
    for (int mask = 1; mask < fold.p; mask <<= 1) {
      int partner = me ^ mask;
      int peer = fold.unfolded(partner);
      b.send(peer, whole_output(spec));
      b.recv(peer, tmp);
      combine(b, whole_output(spec), tmp, partner < me);
    }
  }
  fold_out(spec, b, fold);
}

// Rabenseifner: a reduce-scatter by recursive halving (each round exchanges half of
// what is left) and an all-gather by recursive doubling retracing it: about 2 (p-1)/p
// of the data per rank like a ring, in 2 log2(p) rounds instead of 2 (n - 1).
void rabenseifner_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  if (spec.count == 0) return;
  Fold fold(spec.size);
  Region tmp = b.allocate_scratch(spec.count);
  int me = fold_in(spec, b, fold, tmp);
  if (me >= 0) {
    struct Round {
      int peer;
      Block kept, given;
    };
    std::vector<Round> rounds;
    Block range{0, spec.count};
    for (int mask = fold.p / 2; mask >= 1; mask >>= 1) {
      int partner = me ^ mask;
      Block lower{range.offset, range.count / 2};
      Block upper{range.offset + lower.count, range.count - lower.count};
      bool upper_half = (me & mask) != 0;
      Round round{fold.unfolded(partner), upper_half ? upper : lower, upper_half ? lower : upper};
      if (round.given.count > 0) b.send(round.peer, out_block(round.given));
      if (round.kept.count > 0) {
        Region arrived = tmp.sub(round.kept.offset, round.kept.count);
        b.recv(round.peer, arrived);
        combine(b, out_block(round.kept), arrived, partner < me);
      }
      rounds.push_back(round);
      range = round.kept;
    }
    for (auto it = rounds.rbegin(); it != rounds.rend(); ++it) {
      if (it->kept.count > 0) b.send(it->peer, out_block(it->kept));
      if (it->given.count > 0) b.recv(it->peer, out_block(it->given));
    }
  }
  fold_out(spec, b, fold);
}

// Power-of-two groups only: in round k each rank swaps the 2^k blocks it has with its
// partner's, one message per round when the blocks lie one after another.
void recursive_doubling_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, r = spec.rank;
  const Block& own = spec.blocks[r];
  b.copy(out_block(own), input_region(0, own.count));
  auto exchange = [&](int first, int count, bool sending, int peer) {
    const Block& head = spec.blocks[first];
    bool packed = true;
    uint64_t total = head.count;
    for (int i = first + 1; i < first + count; ++i) {
      packed =
          packed && spec.blocks[i].offset == spec.blocks[i - 1].offset + spec.blocks[i - 1].count;
      total += spec.blocks[i].count;
    }
    if (packed) {
      if (total == 0) return;
      Region whole = output_region(head.offset, total);
      sending ? b.send(peer, whole) : b.recv(peer, whole);
      return;
    }
    for (int i = first; i < first + count; ++i) {
      if (spec.blocks[i].count == 0) continue;
      sending ? b.send(peer, out_block(spec.blocks[i])) : b.recv(peer, out_block(spec.blocks[i]));
    }
  };
  for (int mask = 1; mask < n; mask <<= 1) {
    int peer = r ^ mask;
    exchange(r & ~(mask - 1), mask, true, peer);
    exchange(peer & ~(mask - 1), mask, false, peer);
  }
}

// Power-of-two groups only, blocks packed in rank order: in each round a rank sends
// the partial sums of the half of its remaining blocks its partner keeps, and reduces
// the partner's partials of its own half; the last round reduces into the output.
void recursive_halving_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size, r = spec.rank;
  const uint64_t total = spec.blocks.back().offset + spec.blocks.back().count;
  Region result = output_region(0, spec.blocks[r].count);
  if (n == 1) {
    b.copy(result, in_block(spec.blocks[0]));
    return;
  }
  Region partial = b.allocate_scratch(total);  // same offsets as the input
  Region arrived = b.allocate_scratch(total);
  auto span = [&](int first, int count) {
    const Block& head = spec.blocks[first];
    const Block& tail = spec.blocks[first + count - 1];
    return Block{head.offset, tail.offset + tail.count - head.offset};
  };
  int first = 0, count = n;
  bool from_input = true;
  for (int mask = n / 2; mask >= 1; mask >>= 1) {
    int peer = r ^ mask;
    count /= 2;
    bool upper_half = (r & mask) != 0;
    Block kept = span(upper_half ? first + count : first, count);
    Block given = span(upper_half ? first : first + count, count);
    if (upper_half) first += count;
    if (given.count > 0) {
      b.send(peer, from_input ? in_block(given) : partial.sub(given.offset, given.count));
    }
    if (kept.count > 0) {
      Region theirs = arrived.sub(kept.offset, kept.count);
      Region mine = from_input ? in_block(kept) : partial.sub(kept.offset, kept.count);
      Region into = mask == 1 ? result : partial.sub(kept.offset, kept.count);
      b.recv(peer, theirs);
      if (peer < r) {
        b.reduce(into, theirs, mine);
      } else {
        b.reduce(into, mine, theirs);
      }
    }
    from_input = false;
  }
}

}  // namespace weft::collectives::algorithms

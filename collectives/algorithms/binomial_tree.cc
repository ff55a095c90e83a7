// Binomial trees rooted at the collective's root: ceil(log2 n) rounds, the latency
// optimum, with every rank's data moving whole (or in pipelined segments) along the
// tree. Ranks are taken relative to the root ("virtual rank" v = rank - root mod n);
// the parent of v is v with its lowest set bit cleared, its children v + 2^k for
// every 2^k below that bit.
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {
namespace {

struct BinomialNode {
  int parent = -1;                 // group rank; -1 at the root
  std::vector<int> children;       // group ranks, nearest (smallest subtree) first
  std::vector<int> child_virtual;  // their virtual ranks
  int virtual_rank = 0;
  int subtree = 1;  // ranks in this node's subtree, itself included
};

BinomialNode binomial_node(int n, int rank, int root) {
  BinomialNode node;
  int v = mod(rank - root, n);
  node.virtual_rank = v;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (v & mask) {
      node.parent = mod(v - mask + root, n);
      break;
    }
    if (v + mask < n) {
      node.children.push_back(mod(v + mask + root, n));
      node.child_virtual.push_back(v + mask);
    }
  }
  node.subtree = std::min(mask, n - v);
  return node;
}

// Tree broadcast of `data` (the same region on every rank) from the root.
void broadcast_down(const CollectiveSpec& spec, ScheduleBuilder& b, const BinomialNode& node,
                    Region data) {
  for_segments(data.count, spec.segment, [&](uint64_t at, uint64_t len) {
    if (node.parent >= 0) b.recv(node.parent, data.sub(at, len));
    // Farthest child first: its subtree is the largest and has the most rounds to go.
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      b.send(*it, data.sub(at, len));
    }
  });
}

// Tree reduction of every rank's `mine` into `result` at the root (`result` is
// scratch elsewhere; `mine` is never written).
void reduce_up(const CollectiveSpec& spec, ScheduleBuilder& b, const BinomialNode& node,
               Region mine, Region result) {
  const size_t children = node.children.size();
  Region slots[2];
  if (children > 0) {
    uint64_t slot = std::min(spec.segment, mine.count) * children;
    slots[0] = b.allocate_scratch(slot);
    slots[1] = b.allocate_scratch(slot);
  }
  uint64_t index = 0;
  for_segments(mine.count, spec.segment, [&](uint64_t at, uint64_t len) {
    Region partial = mine.sub(at, len);
    Region& slot = slots[index++ % 2];
    for (size_t c = 0; c < children; ++c) {
      Region theirs = slot.sub(c * len, len);
      b.recv(node.children[c], theirs);
      // Children cover higher virtual ranks than everything combined so far.
      b.reduce(result.sub(at, len), partial, theirs);
      partial = result.sub(at, len);
    }
    if (node.parent >= 0) {
      b.send(node.parent, partial);
    } else if (children == 0) {
      b.copy(result.sub(at, len), partial);
    }
  });
}

// Where child i's subtree lies in `subtree` (a node's blocks of `c` elements in virtual
// rank order, its own first).
Region child_share(const BinomialNode& node, size_t i, int n, uint64_t c, Region subtree) {
  int child_v = node.child_virtual[i];
  uint64_t child_ranks = std::min<uint64_t>(child_v - node.virtual_rank, n - child_v);
  return subtree.sub((child_v - node.virtual_rank) * c, child_ranks * c);
}

}  // namespace

void binomial_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b) {
  broadcast_down(spec, b, binomial_node(spec.size, spec.rank, spec.root),
                 output_region(0, spec.count));
}

void binomial_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  BinomialNode node = binomial_node(spec.size, spec.rank, spec.root);
  Region result = node.parent < 0
                      ? output_region(0, spec.count)
                      : (node.children.empty() ? Region{} : b.allocate_scratch(spec.count));
  reduce_up(spec, b, node, input_region(0, spec.count), result);
}

// Reduce to rank 0, then broadcast from it: 2 log2(n) rounds, whole vectors.
void binomial_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  BinomialNode node = binomial_node(spec.size, spec.rank, 0);
  Region result = output_region(0, spec.count);
  reduce_up(spec, b, node, input_region(0, spec.count), result);
  broadcast_down(spec, b, node, result);
}

// Gather up the tree: each rank collects its subtree's blocks (in virtual-rank order)
// and passes them to its parent in one message; the root puts them in place.
// Uniform blocks only (gather, not gatherv), so that every subtree's size is known.
void binomial_gather(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size;
  BinomialNode node = binomial_node(n, spec.rank, spec.root);
  const uint64_t c = spec.blocks[spec.rank].count;
  if (c == 0) return;
  Region subtree = b.allocate_scratch(c * node.subtree);
  b.copy(subtree.sub(0, c), input_region(0, c));
  for (size_t i = 0; i < node.children.size(); ++i) {
    b.recv(node.children[i], child_share(node, i, n, c, subtree));
  }
  if (node.parent >= 0) {
    b.send(node.parent, subtree);
    return;
  }
  for (int v = 0; v < n; ++v) {
    b.copy(out_block(spec.blocks[mod(v + spec.root, n)]), subtree.sub(v * c, c));
  }
}

// The reverse: the root lays the blocks out in virtual-rank order and sends each child
// its subtree's share.
void binomial_scatter(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size;
  BinomialNode node = binomial_node(n, spec.rank, spec.root);
  const uint64_t c = spec.blocks[spec.rank].count;
  if (c == 0) return;
  Region subtree = b.allocate_scratch(c * node.subtree);
  if (node.parent < 0) {
    for (int v = 0; v < n; ++v) {
      b.copy(subtree.sub(v * c, c), in_block(spec.blocks[mod(v + spec.root, n)]));
    }
  } else {
    b.recv(node.parent, subtree);
  }
  for (size_t i = node.children.size(); i-- > 0;) {
    b.send(node.children[i], child_share(node, i, n, c, subtree));
  }
  b.copy(output_region(0, c), subtree.sub(0, c));
}

}  // namespace weft::collectives::algorithms

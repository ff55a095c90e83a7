// Double binary tree all_reduce (as in NCCL): two binary trees over the group, built so
// that a rank that is an inner node of one is a leaf of the other, each reducing half
// of the vector up to its root and broadcasting it back down, both pipelined in
// segments. Every rank sends and receives about the whole vector once in each
// direction, like a ring, but the pipeline is only O(log n) deep instead of O(n).
#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/common.h"

namespace weft::collectives::algorithms {
namespace {

struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

// The in-order binary tree on positions 1..n, rooted at the largest power of two <= n.
// Position i whose lowest set bit is 2^k (k > 0) has left child i - 2^(k-1) and, as
// right child, the root of what exists of its right subtree (i, i + 2^k): i + h for
// the largest power of two h < 2^k with i + h <= n. Odd positions are the leaves.
std::vector<TreeNode> in_order_tree(int n) {
  std::vector<TreeNode> nodes(n + 1);
  auto adopt = [&](int parent, int child) {
    nodes[parent].children.push_back(child);
    nodes[child].parent = parent;
  };
  for (int i = 1; i <= n; ++i) {
    int low = i & -i;
    if (low == 1) continue;
    adopt(i, i - low / 2);
    int h = low / 2;
    while (h >= 1 && i + h > n) h /= 2;
    if (h >= 1) adopt(i, i + h);
  }
  return nodes;
}

// Rank `rank`'s place in tree `which` (0 or 1). Tree 0 maps rank r to position r + 1;
// tree 1 mirrors it (even n) or shifts it by one (odd n), which swaps leaves and inner
// nodes.
TreeNode tree_node(int n, int rank, int which) {
  std::vector<TreeNode> tree = in_order_tree(n);
  auto to_position = [&](int r) {
    if (which == 0) return r + 1;
    return n % 2 == 0 ? n - r : mod(r + 1, n) + 1;
  };
  auto to_rank = [&](int position) {
    if (which == 0) return position - 1;
    return n % 2 == 0 ? n - position : mod(position - 2, n);
  };
  const TreeNode& at = tree[to_position(rank)];
  TreeNode node;
  node.parent = at.parent > 0 ? to_rank(at.parent) : -1;
  for (int c : at.children) node.children.push_back(to_rank(c));
  return node;
}

// Reduces `part` of the vector up `node`'s tree and broadcasts it down again.
void reduce_then_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b, const TreeNode& node,
                           Block part) {
  const size_t children = node.children.size();
  constexpr int kSlots = 2;
  Region slots[kSlots];
  if (children > 0) {
    uint64_t slot = std::min(spec.segment, part.count) * children;
    for (Region& s : slots) s = b.allocate_scratch(slot);
  }
  uint64_t index = 0;
  for_segments(part.count, spec.segment, [&](uint64_t at, uint64_t len) {
    Region mine = input_region(part.offset + at, len);
    Region result = output_region(part.offset + at, len);
    Region& slot = slots[index++ % kSlots];
    Region partial = mine;
    for (size_t c = 0; c < children; ++c) {
      Region theirs = slot.sub(c * len, len);
      b.recv(node.children[c], theirs);
      b.reduce(result, partial, theirs);
      partial = result;
    }
    if (node.parent >= 0) {
      b.send(node.parent, partial);
      b.recv(node.parent, result);
    } else if (children == 0) {
      b.copy(result, mine);
    }
    for (int child : node.children) b.send(child, result);
  });
}

}  // namespace

void double_binary_tree_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b) {
  const int n = spec.size;
  Block halves[2] = {{0, spec.count / 2}, {spec.count / 2, spec.count - spec.count / 2}};
  if (n == 1) {
    b.copy(output_region(0, spec.count), input_region(0, spec.count));
    return;
  }
  TreeNode nodes[2] = {tree_node(n, spec.rank, 0), tree_node(n, spec.rank, 1)};
  for (int t = 0; t < 2; ++t) reduce_then_broadcast(spec, b, nodes[t], halves[t]);
}

}  // namespace weft::collectives::algorithms

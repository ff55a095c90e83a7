#include "collectives/call_stamp.h"

#include <algorithm>

namespace weft::collectives {
namespace {

// Bits of the stamp, low to high: kind + 1 (4), op + 1 or 0 (4), dtype + 1 (5),
// root + 1 or 0 (19), count (32).
constexpr int kOpShift = 4, kDTypeShift = 8, kRootShift = 13, kCountShift = 32;
constexpr uint64_t kRootLimit = (uint64_t{1} << 19) - 1;
constexpr uint64_t kCountLimit = 0xffffffffull;
static_assert(kNumCollectiveKinds + 1 < 16 && kNumReduceOps + 1 < 16 && kNumDTypes + 1 < 32);

bool rooted(CollectiveKind kind) {
  return kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce ||
         kind == CollectiveKind::kGather || kind == CollectiveKind::kScatter;
}

bool reduces_with_every_op(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

bool same_count_everywhere(CollectiveKind kind) {
  return kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kAllReduce ||
         kind == CollectiveKind::kReduce;
}

}  // namespace

uint64_t call_stamp(const CollectiveSpec& spec) {
  uint64_t stamp = static_cast<uint64_t>(spec.kind) + 1;
  if (reduces_with_every_op(spec.kind)) stamp |= (static_cast<uint64_t>(spec.op) + 1) << kOpShift;
  stamp |= (static_cast<uint64_t>(spec.dtype) + 1) << kDTypeShift;
  if (rooted(spec.kind)) {
    stamp |= std::min<uint64_t>(static_cast<uint64_t>(spec.root) + 1, kRootLimit) << kRootShift;
  }
  if (same_count_everywhere(spec.kind)) {
    stamp |= std::min<uint64_t>(spec.count, kCountLimit) << kCountShift;
  }
  return stamp;
}

std::string describe_call_stamp(uint64_t stamp) {
  const uint64_t kind = (stamp & 0xf) - 1;
  const uint64_t op = (stamp >> kOpShift) & 0xf;
  const uint64_t dtype = ((stamp >> kDTypeShift) & 0x1f) - 1;
  const uint64_t root = (stamp >> kRootShift) & kRootLimit;
  if (kind >= kNumCollectiveKinds || dtype >= kNumDTypes || op > kNumReduceOps) {
    return "an unknown collective (stamp " + std::to_string(stamp) + ")";
  }
  const auto collective = static_cast<CollectiveKind>(kind);
  std::string d = std::string(collective_name(collective)) + " (";
  if (op != 0) d += std::string("op ") + reduce_op_name(static_cast<ReduceOp>(op - 1)) + ", ";
  if (root != 0) {
    d += "root: group rank " + std::to_string(root - 1) + (root == kRootLimit ? " or above" : "") +
         ", ";
  }
  d += dtype_name(static_cast<DType>(dtype));
  if (same_count_everywhere(collective)) {
    const uint64_t count = stamp >> kCountShift;
    d += ", " + std::to_string(count) + (count == kCountLimit ? " or more" : "") + " elements";
  }
  return d + ")";
}

}  // namespace weft::collectives

// Call stamps: equal exactly where the ranks' calls agree, and described readably.
#include "collectives/call_stamp.h"

#include <gtest/gtest.h>

namespace weft::collectives {
namespace {

CollectiveSpec spec(CollectiveKind kind, ReduceOp op, int root, uint64_t count) {
  CollectiveSpec s;
  s.kind = kind;
  s.op = op;
  s.dtype = DType::kFloat32;
  s.size = 4;
  s.root = root;
  s.count = count;
  return s;
}

TEST(CallStamp, DiffersWhereTheCallsDisagree) {
  const uint64_t sum = call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 0, 1000));
  EXPECT_NE(sum, 0u);
  EXPECT_EQ(sum, call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 0, 1000)));
  EXPECT_NE(sum, call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kMax, 0, 1000)));
  EXPECT_NE(sum, call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 0, 999)));
  EXPECT_NE(sum, call_stamp(spec(CollectiveKind::kBroadcast, ReduceOp::kSum, 0, 1000)));
  CollectiveSpec doubles = spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 0, 1000);
  doubles.dtype = DType::kFloat64;
  EXPECT_NE(sum, call_stamp(doubles));
  EXPECT_NE(call_stamp(spec(CollectiveKind::kBroadcast, ReduceOp::kSum, 0, 8)),
            call_stamp(spec(CollectiveKind::kBroadcast, ReduceOp::kSum, 1, 8)));
}

TEST(CallStamp, LeavesOutWhatRanksMayPassDifferently) {
  // A rooted reduce: the root's op decides (MPI programs pass others elsewhere).
  EXPECT_EQ(call_stamp(spec(CollectiveKind::kReduce, ReduceOp::kSum, 2, 8)),
            call_stamp(spec(CollectiveKind::kReduce, ReduceOp::kMax, 2, 8)));
  // Collectives that do not reduce ignore the op; variable counts are not in the stamp.
  EXPECT_EQ(call_stamp(spec(CollectiveKind::kAllGather, ReduceOp::kSum, 0, 8)),
            call_stamp(spec(CollectiveKind::kAllGather, ReduceOp::kMin, 0, 16)));
  // Only rooted collectives have a root.
  EXPECT_EQ(call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 0, 8)),
            call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kSum, 3, 8)));
}

TEST(CallStamp, DescribesTheCall) {
  EXPECT_EQ(
      describe_call_stamp(call_stamp(spec(CollectiveKind::kAllReduce, ReduceOp::kMax, 0, 1000))),
      "all_reduce (op max, float32, 1000 elements)");
  EXPECT_EQ(
      describe_call_stamp(call_stamp(spec(CollectiveKind::kBroadcast, ReduceOp::kSum, 1, 16))),
      "broadcast (root: group rank 1, float32, 16 elements)");
  EXPECT_EQ(describe_call_stamp(
                call_stamp(spec(CollectiveKind::kReduce, ReduceOp::kSum, 0, uint64_t{1} << 40))),
            "reduce (root: group rank 0, float32, 4294967295 or more elements)");
  EXPECT_EQ(describe_call_stamp(call_stamp(spec(CollectiveKind::kGather, ReduceOp::kSum, 3, 5))),
            "gather (root: group rank 3, float32)");
  EXPECT_EQ(describe_call_stamp(0xf), "an unknown collective (stamp 15)");
}

}  // namespace
}  // namespace weft::collectives

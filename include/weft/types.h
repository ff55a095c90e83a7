// The vocabulary of element types and reductions: what a tensor holds (DType) and how
// reducing collectives combine elements (ReduceOp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft {

enum class DType : uint8_t {
  kInt8,
  kUInt8,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};
inline constexpr int kNumDTypes = 10;

size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);

// IEEE binary16 and bfloat16 values, stored as their 16 raw bits.
struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

enum class ReduceOp : uint8_t { kSum, kProduct, kMin, kMax, kAvg, kBand, kBor, kBxor };
inline constexpr int kNumReduceOps = 8;
const char* reduce_op_name(ReduceOp op);  // "sum", "prod", ...

}  // namespace weft

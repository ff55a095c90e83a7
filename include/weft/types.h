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

// Bytes per element; inline, since every size check of every call asks.
constexpr size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUInt8:
      return 1;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}
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

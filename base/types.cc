#include "weft/types.h"

namespace weft {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt32:
      return "int32";
    case DType::kUInt32:
      return "uint32";
    case DType::kInt64:
      return "int64";
    case DType::kUInt64:
      return "uint64";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "invalid dtype";
}

const char* reduce_op_name(ReduceOp op) {
  static const char* const names[kNumReduceOps] = {"sum", "prod", "min", "max",
                                                   "avg", "band", "bor", "bxor"};
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumReduceOps ? names[i] : "invalid";
}

}  // namespace weft

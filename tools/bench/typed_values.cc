#include "tools/bench/typed_values.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "collectives/reduce/reduce_kernels.h"

namespace weft::bench {

bool is_integer(DType d) {
  return d != DType::kFloat16 && d != DType::kBFloat16 && d != DType::kFloat32 &&
         d != DType::kFloat64;
}

bool is_signed(DType d) {
  return d == DType::kInt8 || d == DType::kInt32 || d == DType::kInt64 || !is_integer(d);
}

void store(DType d, void* base, uint64_t i, double v) {
  switch (d) {
    case DType::kInt8:
      static_cast<int8_t*>(base)[i] = static_cast<int8_t>(v);
      return;
    case DType::kUInt8:
      static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(v);
      return;
    case DType::kInt32:
      static_cast<int32_t*>(base)[i] = static_cast<int32_t>(v);
      return;
    case DType::kUInt32:
      static_cast<uint32_t*>(base)[i] = static_cast<uint32_t>(v);
      return;
    case DType::kInt64:
      static_cast<int64_t*>(base)[i] = static_cast<int64_t>(v);
      return;
    case DType::kUInt64:
      static_cast<uint64_t*>(base)[i] = static_cast<uint64_t>(v);
      return;
    case DType::kFloat16:
      static_cast<float16*>(base)[i] = collectives::reduce::float_to_float16(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<bfloat16*>(base)[i] =
          collectives::reduce::float_to_bfloat16(static_cast<float>(v));
      return;
    case DType::kFloat32:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      return;
    case DType::kFloat64:
      static_cast<double*>(base)[i] = v;
      return;
  }
}

double load(DType d, const void* base, uint64_t i) {
  switch (d) {
    case DType::kInt8:
      return static_cast<const int8_t*>(base)[i];
    case DType::kUInt8:
      return static_cast<const uint8_t*>(base)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(base)[i];
    case DType::kUInt32:
      return static_cast<const uint32_t*>(base)[i];
    case DType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(base)[i]);
    case DType::kUInt64:
      return static_cast<double>(static_cast<const uint64_t*>(base)[i]);
    case DType::kFloat16:
      return collectives::reduce::float16_to_float(static_cast<const float16*>(base)[i]);
    case DType::kBFloat16:
      return collectives::reduce::bfloat16_to_float(static_cast<const bfloat16*>(base)[i]);
    case DType::kFloat32:
      return static_cast<const float*>(base)[i];
    case DType::kFloat64:
      return static_cast<const double*>(base)[i];
  }
  return 0;
}

double input_value(DType d, ReduceOp op, int r, uint64_t i) {
  switch (op) {
    case ReduceOp::kProduct:
      // Powers of two (and -1 for signed dtypes): products of up to 8 stay within 256.
      if (is_signed(d) && (r + i) % 5 == 0) return -1;
      return (r + i) % 3 == 0 ? 2 : 1;
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      return static_cast<double>((r * 5 + i * 11) % 64);
    default:
      // Sums of up to 8 stay within [-24, 48].
      return static_cast<double>((r * 7 + i * 3) % 7) - (is_signed(d) ? 3 : 0);
  }
}

// `v` wrapped to the width of an integer dtype, as the kernels' arithmetic wraps.
double wrap(DType d, int64_t v) {
  switch (d) {
    case DType::kInt8:
      return static_cast<int8_t>(v);
    case DType::kUInt8:
      return static_cast<uint8_t>(v);
    case DType::kInt32:
      return static_cast<int32_t>(v);
    case DType::kUInt32:
      return static_cast<uint32_t>(v);
    default:
      return static_cast<double>(v);
  }
}

double reduced_value(DType d, ReduceOp op, int ranks, uint64_t i) {
  int64_t acc = static_cast<int64_t>(input_value(d, op, 0, i));
  for (int r = 1; r < ranks; ++r) {
    int64_t v = static_cast<int64_t>(input_value(d, op, r, i));
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        acc += v;
        break;
      case ReduceOp::kProduct:
        acc *= v;
        break;
      case ReduceOp::kMin:
        acc = std::min(acc, v);
        break;
      case ReduceOp::kMax:
        acc = std::max(acc, v);
        break;
      case ReduceOp::kBand:
        acc &= v;
        break;
      case ReduceOp::kBor:
        acc |= v;
        break;
      case ReduceOp::kBxor:
        acc ^= v;
        break;
    }
  }
  if (op == ReduceOp::kAvg) {
    if (is_integer(d)) return wrap(d, acc / ranks);
    return static_cast<double>(acc) / ranks;
  }
  return is_integer(d) ? wrap(d, acc) : static_cast<double>(acc);
}

bool matches(DType d, ReduceOp op, double got, double want) {
  if (op != ReduceOp::kAvg || is_integer(d)) return got == want;
  double tolerance = d == DType::kBFloat16  ? 1.0 / 128
                     : d == DType::kFloat16 ? 1.0 / 1024
                     : d == DType::kFloat32 ? 1e-6
                                            : 1e-12;
  return std::fabs(got - want) <= tolerance * std::fabs(want);
}

namespace {
std::atomic<const BufferMemory*> g_buffer_memory{nullptr};
}  // namespace

void place_buffers(const BufferMemory* memory) { g_buffer_memory.store(memory); }

Buffer::Buffer(DType dtype, uint64_t count) : dtype(dtype), size_(count * dtype_size(dtype) + 1) {
  const BufferMemory* memory = g_buffer_memory.load();
  if (memory == nullptr) {
    data_.reset(new std::byte[size_](), std::default_delete<std::byte[]>());
  } else {
    device_ = memory->device;
    data_.reset(memory->allocate(size_), memory->release);
    std::fill_n(data_.get(), size_, std::byte{0});
  }
}

}  // namespace weft::bench

// The GPU twin of core/reduce: the same arithmetic per element, so that a reduction
// gives the same bits whether a rank computes it on its CPU or its GPU.
//
// One kernel per (dtype, op): a grid-stride loop over 16-byte vectors of every operand
// (when the operands share their alignment), with the few elements before and after
// the aligned part done one at a time. The operands' pointers travel by value in the
// kernel's parameters, so a launch needs no copy to the device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "cuda/runtime/reduce_kernels.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

constexpr int kVectorBytes = 16;
constexpr int kThreadsPerBlock = 256;

struct Params {
  const void* inputs[kMaxReduceOperands];
  void* outputs[kMaxReduceOperands];
  int num_inputs;
  int num_outputs;
  // Elements [0, head) and [head + vectors * per-vector, count) one at a time; the
  // vectors in between 16 bytes at a time (every operand is 16-byte aligned at head).
  uint64_t head;
  uint64_t vectors;
  uint64_t count;
  // kAvg's final division when divisor > 1, in the types the CPU kernels divide in
  // (converted on the host, as they convert).
  uint64_t divisor;
  double divisor_double;
  float divisor_float;
};

// ---------------------------------------------------------------------------------
// Floating-point results with x86's NaNs. CUDA's arithmetic returns one canonical NaN
// (0x7fffffff); SSE and AVX return the first NaN operand made quiet, or the "default
// NaN" (negative, quiet, no payload) when the operation itself is invalid (inf - inf,
// 0 * inf). Testing the result costs nothing in a loop bound by memory bandwidth.

__device__ inline float x86_nan(float r, float a, float b) {
  if (r == r) return r;
  if (a != a) return __uint_as_float(__float_as_uint(a) | 0x00400000u);
  if (b != b) return __uint_as_float(__float_as_uint(b) | 0x00400000u);
  return __uint_as_float(0xffc00000u);
}

__device__ inline double x86_nan(double r, double a, double b) {
  constexpr unsigned long long kQuiet = 1ull << 51;
  if (r == r) return r;
  if (a != a) return __longlong_as_double(__double_as_longlong(a) | kQuiet);
  if (b != b) return __longlong_as_double(__double_as_longlong(b) | kQuiet);
  return __longlong_as_double(static_cast<long long>(0xfff8000000000000ull));
}

// ---------------------------------------------------------------------------------
// How an element is stored and computed (collectives/reduce/elementwise.h's Lanes): float16
// and bfloat16 in float, rounded back after every step. CUDA's conversions round to
// nearest even like half_bits.h; only NaNs need handling of their own, since CUDA
// makes every NaN its canonical one and half_bits keeps sign and payload.

template <typename T>
struct Lanes {
  using Compute = T;
  __device__ static T load(T value) { return value; }
  __device__ static T store(T value) { return value; }
};

template <>
struct Lanes<float16> {
  using Compute = float;
  // A NaN keeps its sign and payload and becomes quiet (as F16C's vcvtph2ps).
  __device__ static float load(float16 value) {
    const uint32_t h = value.bits;
    if ((h & 0x7fffu) > 0x7c00u) {
      return __uint_as_float(((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13));
    }
    return __half2float(__ushort_as_half(value.bits));
  }
  // A NaN keeps its sign and leading payload bits, made quiet.
  __device__ static float16 store(float value) {
    const uint32_t bits = __float_as_uint(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
      return {static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7e00u | ((bits >> 13) & 0x3ffu))};
    }
    return {__half_as_ushort(__float2half_rn(value))};
  }
};

template <>
struct Lanes<bfloat16> {
  using Compute = float;
  __device__ static float load(bfloat16 value) {
    return __uint_as_float(static_cast<uint32_t>(value.bits) << 16);
  }
  // Every NaN a step produces has its low 16 bits zero (an operand's, widened, or
  // x86's default NaN), so it is kept as it is, as the CPU kernels' paired loop does.
  __device__ static bfloat16 store(float value) {
    const uint32_t bits = __float_as_uint(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return {static_cast<uint16_t>(bits >> 16)};
    return {__bfloat16_as_ushort(__float2bfloat16_rn(value))};
  }
};

// ---------------------------------------------------------------------------------
// The operations, as in collectives/reduce/elementwise.h.

template <typename T>
using Wrapping = decltype(std::make_unsigned_t<T>{} + 0u);

struct Sum {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return static_cast<C>(static_cast<Wrapping<C>>(a) + static_cast<Wrapping<C>>(b));
    } else {
      return x86_nan(a + b, a, b);
    }
  }
};

struct Product {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      return static_cast<C>(static_cast<Wrapping<C>>(a) * static_cast<Wrapping<C>>(b));
    } else {
      return x86_nan(a * b, a, b);
    }
  }
};

// `a != a` is true only for NaN, which thus wins from either side.
struct Min {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return (a < b || a != a) ? a : b;
  }
};

struct Max {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return (a > b || a != a) ? a : b;
  }
};

struct BitAnd {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return a & b;
  }
};

struct BitOr {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return a | b;
  }
};

struct BitXor {
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return a ^ b;
  }
};

// kAvg's division: elementwise.h's divide_integer for integers (through double up to
// 32 bits, exact there; 64-bit magnitudes divided as unsigned), float division in the
// compute type otherwise.
template <typename T>
__device__ inline T divide(T value, const Params& p) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) <= 4) {
      return static_cast<T>(static_cast<double>(value) / p.divisor_double);
    } else if constexpr (std::is_signed_v<T>) {
      const uint64_t magnitude =
          value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
      const uint64_t quotient = magnitude / p.divisor;
      return static_cast<T>(value < 0 ? 0 - quotient : quotient);
    } else {
      return value / p.divisor;
    }
  } else {
    using L = Lanes<T>;
    using C = typename L::Compute;
    const C a = L::load(value);
    const C d = std::is_same_v<C, float> ? p.divisor_float : static_cast<C>(p.divisor_double);
    return L::store(x86_nan(a / d, a, d));
  }
}

// ---------------------------------------------------------------------------------
// Loads and stores: natural alignment, or byte by byte for operands that do not even
// have that (the CPU kernels accept any address, and so does this one).

template <typename T, bool kBytewise>
__device__ inline T load_element(const void* base, uint64_t i) {
  if constexpr (kBytewise) {
    const unsigned char* p = static_cast<const unsigned char*>(base) + i * sizeof(T);
    unsigned char bytes[sizeof(T)];
    for (size_t b = 0; b < sizeof(T); ++b) bytes[b] = p[b];
    T value;
    memcpy(&value, bytes, sizeof(T));
    return value;
  } else {
    return static_cast<const T*>(base)[i];
  }
}

template <typename T, bool kBytewise>
__device__ inline void store_element(void* base, uint64_t i, T value) {
  if constexpr (kBytewise) {
    unsigned char* p = static_cast<unsigned char*>(base) + i * sizeof(T);
    unsigned char bytes[sizeof(T)];
    memcpy(bytes, &value, sizeof(T));
    for (size_t b = 0; b < sizeof(T); ++b) p[b] = bytes[b];
  } else {
    static_cast<T*>(base)[i] = value;
  }
}

template <typename T>
struct alignas(kVectorBytes) Vector {
  static constexpr int kLanes = kVectorBytes / sizeof(T);
  T lane[kLanes];
};

template <typename T>
__device__ inline Vector<T> load_vector(const void* base, uint64_t head, uint64_t v) {
  const uint4 raw = reinterpret_cast<const uint4*>(static_cast<const T*>(base) + head)[v];
  Vector<T> vector;
  memcpy(&vector, &raw, sizeof raw);
  return vector;
}

template <typename T>
__device__ inline void store_vector(void* base, uint64_t head, uint64_t v, const Vector<T>& x) {
  uint4 raw;
  memcpy(&raw, &x, sizeof raw);
  reinterpret_cast<uint4*>(static_cast<T*>(base) + head)[v] = raw;
}

template <typename T, typename Op>
__device__ inline T step(T a, T b, Op op) {
  using L = Lanes<T>;
  return L::store(op(L::load(a), L::load(b)));
}

template <typename T, typename Op, bool kBytewise>
__device__ inline void reduce_element(const Params& p, uint64_t i, Op op) {
  T r = load_element<T, kBytewise>(p.inputs[0], i);
  for (int k = 1; k < p.num_inputs; ++k)
    r = step(r, load_element<T, kBytewise>(p.inputs[k], i), op);
  if (p.divisor > 1) r = divide(r, p);
  for (int k = 0; k < p.num_outputs; ++k) store_element<T, kBytewise>(p.outputs[k], i, r);
}

template <typename T, typename Op, bool kBytewise>
__global__ void __launch_bounds__(kThreadsPerBlock) reduce_kernel(Params p, Op op) {
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  if constexpr (!kBytewise) {
    for (uint64_t v = first; v < p.vectors; v += stride) {
      Vector<T> r = load_vector<T>(p.inputs[0], p.head, v);
      for (int k = 1; k < p.num_inputs; ++k) {
        const Vector<T> x = load_vector<T>(p.inputs[k], p.head, v);
#pragma unroll
        for (int j = 0; j < Vector<T>::kLanes; ++j) r.lane[j] = step(r.lane[j], x.lane[j], op);
      }
      if (p.divisor > 1) {
#pragma unroll
        for (int j = 0; j < Vector<T>::kLanes; ++j) r.lane[j] = divide(r.lane[j], p);
      }
      for (int k = 0; k < p.num_outputs; ++k) store_vector<T>(p.outputs[k], p.head, v, r);
    }
  }
  // The elements outside the vectors: the head, then the tail.
  const uint64_t tail = p.head + p.vectors * Vector<T>::kLanes;
  const uint64_t scattered = p.head + (p.count - tail);
  for (uint64_t s = first; s < scattered; s += stride) {
    reduce_element<T, Op, kBytewise>(p, s < p.head ? s : tail + (s - p.head), op);
  }
}

// ---------------------------------------------------------------------------------
// The host side.

// reduce_op_name() lives in the API layer, above this one.
const char* op_name(ReduceOp op) {
  static constexpr const char* kNames[kNumReduceOps] = {"sum", "prod", "min", "max",
                                                        "avg", "band", "bor", "bxor"};
  const auto index = static_cast<int>(op);
  return index < kNumReduceOps ? kNames[index] : "unknown op";
}

[[noreturn]] void fail(const char* call, cudaError_t e) {
  throw Error(ErrorCode::kInternal, std::string("reduce: ") + call + ": " + cudaGetErrorString(e));
}

int sm_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> counts[kMaxDevices];
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) fail("cudaGetDevice", e);
  int sms = device < kMaxDevices ? counts[device].load(std::memory_order_relaxed) : 0;
  if (sms == 0) {
    if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        e != cudaSuccess) {
      fail("cudaDeviceGetAttribute(multiProcessorCount)", e);
    }
    if (device < kMaxDevices) counts[device].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

// How many blocks of `kernel` an SM holds at once (its registers decide), asked once
// per kernel. The grid is one full wave of them: a grid-stride loop gives each block
// an equal share, so blocks of a second wave would finish last, with most SMs idle.
template <typename T, typename Op, bool kBytewise>
int resident_blocks_per_sm(void (*kernel)(Params, Op)) {
  static std::atomic<int> cached{0};
  int blocks = cached.load(std::memory_order_relaxed);
  if (blocks == 0) {
    if (const cudaError_t e =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreadsPerBlock, 0);
        e != cudaSuccess) {
      fail("cudaOccupancyMaxActiveBlocksPerMultiprocessor", e);
    }
    if (blocks < 1) blocks = 1;
    cached.store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

template <typename T, typename Op, bool kBytewise>
void launch_kernel(const Params& p, cudaStream_t stream, Op op) {
  constexpr uint64_t kLanes = Vector<T>::kLanes;
  void (*kernel)(Params, Op) = reduce_kernel<T, Op, kBytewise>;
  const uint64_t work = p.vectors + (p.count - p.vectors * kLanes);
  const uint64_t wanted = (work + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const uint64_t wave =
      static_cast<uint64_t>(sm_count()) * resident_blocks_per_sm<T, Op, kBytewise>(kernel);
  const auto blocks = static_cast<unsigned>(wanted < wave ? wanted : wave);
  kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(p, op);
}

template <typename T, typename Op>
void launch_as(Params& p, const ReduceTask& task, cudaStream_t stream, Op op) {
  // Vectors when every operand lies at the same offset from a 16-byte boundary, which
  // the elements before the next boundary (the head) take away.
  const auto offset = [](const void* q) { return reinterpret_cast<uintptr_t>(q) % kVectorBytes; };
  const uintptr_t first_offset = offset(p.inputs[0]);
  bool common = first_offset % sizeof(T) == 0;
  bool natural = true;
  for (int k = 0; k < p.num_inputs; ++k) {
    common = common && offset(p.inputs[k]) == first_offset;
    natural = natural && reinterpret_cast<uintptr_t>(p.inputs[k]) % sizeof(T) == 0;
  }
  for (int k = 0; k < p.num_outputs; ++k) {
    common = common && offset(p.outputs[k]) == first_offset;
    natural = natural && reinterpret_cast<uintptr_t>(p.outputs[k]) % sizeof(T) == 0;
  }
  constexpr uint64_t kLanes = Vector<T>::kLanes;
  p.head = p.count;
  p.vectors = 0;
  if (common) {
    const uint64_t head = (kVectorBytes - first_offset) % kVectorBytes / sizeof(T);
    if (head < p.count) {
      p.head = head;
      p.vectors = (p.count - head) / kLanes;
    }
  }
  // Clears an error left by an earlier call, so that the check below is the launch's.
  cudaGetLastError();
  if (natural) {
    launch_kernel<T, Op, false>(p, stream, op);
  } else {
    launch_kernel<T, Op, true>(p, stream, op);
  }
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    throw Error(ErrorCode::kInternal, std::string("reduce: launching the ") + op_name(task.op) +
                                          " kernel on " + dtype_name(task.dtype) + ": " +
                                          cudaGetErrorString(e));
  }
}

template <typename T>
void launch_typed(Params& p, const ReduceTask& task, cudaStream_t stream) {
  switch (task.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return launch_as<T>(p, task, stream, Sum{});
    case ReduceOp::kProduct:
      return launch_as<T>(p, task, stream, Product{});
    case ReduceOp::kMin:
      return launch_as<T>(p, task, stream, Min{});
    case ReduceOp::kMax:
      return launch_as<T>(p, task, stream, Max{});
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      if constexpr (std::is_integral_v<T>) {
        if (task.op == ReduceOp::kBand) return launch_as<T>(p, task, stream, BitAnd{});
        if (task.op == ReduceOp::kBor) return launch_as<T>(p, task, stream, BitOr{});
        return launch_as<T>(p, task, stream, BitXor{});
      }
      break;
  }
  throw InvalidArgument(std::string("reduce: ") + op_name(task.op) + " is not defined on dtype " +
                        dtype_name(task.dtype));
}

}  // namespace

void launch_reduce(const ReduceTask& task, void* stream) {
  const auto inputs = task.inputs.size();
  const auto outputs = task.outputs.size();
  if (inputs < 1 || inputs > kMaxReduceOperands || outputs < 1 || outputs > kMaxReduceOperands) {
    throw InvalidArgument("reduce: " + std::to_string(inputs) + " inputs and " +
                          std::to_string(outputs) + " outputs (1 to " +
                          std::to_string(kMaxReduceOperands) + " of each are allowed)");
  }
  if (task.divisor == 0) throw InvalidArgument("reduce: divisor 0");
  if (task.count == 0) return;

  Params p{};
  for (size_t k = 0; k < inputs; ++k) p.inputs[k] = task.inputs[k];
  for (size_t k = 0; k < outputs; ++k) p.outputs[k] = task.outputs[k];
  p.num_inputs = static_cast<int>(inputs);
  p.num_outputs = static_cast<int>(outputs);
  p.count = task.count;
  p.divisor = task.divisor;
  p.divisor_double = static_cast<double>(task.divisor);
  p.divisor_float = static_cast<float>(task.divisor);

  const auto s = static_cast<cudaStream_t>(stream);
  switch (task.dtype) {
    case DType::kInt8:
      return launch_typed<int8_t>(p, task, s);
    case DType::kUInt8:
      return launch_typed<uint8_t>(p, task, s);
    case DType::kInt32:
      return launch_typed<int32_t>(p, task, s);
    case DType::kUInt32:
      return launch_typed<uint32_t>(p, task, s);
    case DType::kInt64:
      return launch_typed<int64_t>(p, task, s);
    case DType::kUInt64:
      return launch_typed<uint64_t>(p, task, s);
    case DType::kFloat16:
      return launch_typed<float16>(p, task, s);
    case DType::kBFloat16:
      return launch_typed<bfloat16>(p, task, s);
    case DType::kFloat32:
      return launch_typed<float>(p, task, s);
    case DType::kFloat64:
      return launch_typed<double>(p, task, s);
  }
  throw InvalidArgument("reduce: unknown dtype " + std::to_string(static_cast<int>(task.dtype)));
}

}  // namespace weft::cuda

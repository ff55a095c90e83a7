#include "collectives/reduce/reduce_kernels.h"

#include <string>

#include "collectives/reduce/elementwise.h"
#include "collectives/reduce/float16_kernels.h"
#include "weft/error.h"

namespace weft::collectives::reduce {
namespace {

// Each of these is compiled once per instruction set, and the dynamic loader binds the
// best one the CPU runs (an ifunc), so choosing costs nothing per call. AVX-512 without
// its byte and word extensions still helps the 32- and 64-bit types.
//
// Not in sanitizer builds: the loader runs ifunc resolvers while it relocates, before
// a sanitizer's runtime is up, and ThreadSanitizer's instrumented resolver then
// crashes before main. There the kernels are plain functions (the same templates, for
// the baseline instruction set), which is what the sanitizers are there to check.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(WEFT_SANITIZER_BUILD)
#define WEFT_ISA_CLONES
#define WEFT_ISA_CLONED 0
#else
#define WEFT_ISA_CLONED 1
#define WEFT_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

template <typename T>
WEFT_ISA_CLONES void reduce_as(ReduceOp op, void* dst, const void* a, const void* b,
                               uint64_t count) {
  elementwise::reduce<T>(op, dst, a, b, count);
}

template <typename T>
WEFT_ISA_CLONES void divide_as(void* data, uint64_t count, uint64_t divisor) {
  elementwise::divide<T>(data, count, divisor);
}

#undef WEFT_ISA_CLONES

bool is_integer(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kInt64:
    case DType::kUInt64:
      return true;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return false;
  }
  return false;
}

bool is_dtype(DType dtype) { return static_cast<int>(dtype) < kNumDTypes; }

// Callers check op_supports() first; reaching these is a bug in weft. Kept out of
// line so that the kernels' entry points need no stack frame for building messages,
// which costs small reductions a third of their time.
[[noreturn, gnu::cold, gnu::noinline]] void refuse(ReduceOp op, DType dtype) {
  throw Error(ErrorCode::kInternal, "reduce_elements: reduction " +
                                        std::to_string(static_cast<int>(op)) +
                                        " is not defined on dtype " + dtype_name(dtype));
}

[[noreturn, gnu::cold, gnu::noinline]] void refuse_division(DType dtype, uint64_t divisor) {
  throw Error(ErrorCode::kInternal, "divide_elements: divisor " + std::to_string(divisor) +
                                        " on dtype " + dtype_name(dtype));
}

bool supported(ReduceOp op, DType dtype) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProduct:
    case ReduceOp::kMin:
    case ReduceOp::kMax:
    case ReduceOp::kAvg:
      return is_dtype(dtype);
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      return is_integer(dtype);
  }
  return false;
}

}  // namespace

bool op_supports(ReduceOp op, DType dtype) { return supported(op, dtype); }

const char* kernel_instruction_set() {
#if WEFT_ISA_CLONED
  // target_clones' resolver prefers the first listed set the CPU supports.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  return "baseline";
#else
  return "baseline (sanitizer build)";
#endif
}

void reduce_elements(ReduceOp op, DType dtype, void* dst, const void* a, const void* b,
                     uint64_t count) {
  if (!supported(op, dtype)) [[unlikely]] {
    refuse(op, dtype);
  }
  switch (dtype) {
    case DType::kInt8:
      return reduce_as<int8_t>(op, dst, a, b, count);
    case DType::kUInt8:
      return reduce_as<uint8_t>(op, dst, a, b, count);
    case DType::kInt32:
      return reduce_as<int32_t>(op, dst, a, b, count);
    case DType::kUInt32:
      return reduce_as<uint32_t>(op, dst, a, b, count);
    case DType::kInt64:
      return reduce_as<int64_t>(op, dst, a, b, count);
    case DType::kUInt64:
      return reduce_as<uint64_t>(op, dst, a, b, count);
    case DType::kFloat16:
      if (float16_kernels::have_f16c()) {
        return float16_kernels::reduce_f16c(op, dst, a, b, count);
      }
      return float16_kernels::reduce_portable(op, dst, a, b, count);
    case DType::kBFloat16:
      return reduce_as<bfloat16>(op, dst, a, b, count);
    case DType::kFloat32:
      return reduce_as<float>(op, dst, a, b, count);
    case DType::kFloat64:
      return reduce_as<double>(op, dst, a, b, count);
  }
}

void divide_elements(DType dtype, void* data, uint64_t count, uint64_t divisor) {
  if (divisor == 0 || !is_dtype(dtype)) [[unlikely]] {
    refuse_division(dtype, divisor);
  }
  switch (dtype) {
    case DType::kInt8:
      return divide_as<int8_t>(data, count, divisor);
    case DType::kUInt8:
      return divide_as<uint8_t>(data, count, divisor);
    case DType::kInt32:
      return divide_as<int32_t>(data, count, divisor);
    case DType::kUInt32:
      return divide_as<uint32_t>(data, count, divisor);
    case DType::kInt64:
      return divide_as<int64_t>(data, count, divisor);
    case DType::kUInt64:
      return divide_as<uint64_t>(data, count, divisor);
    case DType::kFloat16:
      if (float16_kernels::have_f16c()) return float16_kernels::divide_f16c(data, count, divisor);
      return float16_kernels::divide_portable(data, count, divisor);
    case DType::kBFloat16:
      return divide_as<bfloat16>(data, count, divisor);
    case DType::kFloat32:
      return divide_as<float>(data, count, divisor);
    case DType::kFloat64:
      return divide_as<double>(data, count, divisor);
  }
}

namespace float16_kernels {

// For CPUs without F16C, which predate AVX2: compiled once, for the baseline.
void reduce_portable(ReduceOp op, void* dst, const void* a, const void* b, uint64_t count) {
  elementwise::reduce<float16>(op, dst, a, b, count);
}

void divide_portable(void* data, uint64_t count, uint64_t divisor) {
  elementwise::divide<float16>(data, count, divisor);
}

}  // namespace float16_kernels

}  // namespace weft::collectives::reduce

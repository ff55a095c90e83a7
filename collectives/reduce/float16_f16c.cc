#include <cstdint>

#include "collectives/reduce/float16_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

namespace weft::collectives::reduce::float16_kernels {

bool have_f16c() {
  static const bool present = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  }();
  return present;
}

}  // namespace weft::collectives::reduce::float16_kernels

// Everything from here on may use AVX2 and F16C: it runs only where have_f16c().
#pragma GCC push_options
#pragma GCC target("avx2,f16c")

namespace weft::collectives::reduce::float16_kernels {
namespace {

struct Sum {
  __m256 operator()(__m256 a, __m256 b) const { return _mm256_add_ps(a, b); }
};

struct Product {
  __m256 operator()(__m256 a, __m256 b) const { return _mm256_mul_ps(a, b); }
};

// The same choice as the scalar kernels: a where a < b or a is NaN, else b (so a NaN
// in either operand wins, and equal values, +0 and -0 included, give b).
struct Min {
  __m256 operator()(__m256 a, __m256 b) const {
    const __m256 take_a =
        _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    return _mm256_blendv_ps(b, a, take_a);
  }
};

struct Max {
  __m256 operator()(__m256 a, __m256 b) const {
    const __m256 take_a =
        _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ), _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    return _mm256_blendv_ps(b, a, take_a);
  }
};

struct DivideBy {
  __m256 divisor;
  __m256 operator()(__m256 a, __m256) const { return _mm256_div_ps(a, divisor); }
};

// Round to nearest even whatever MXCSR says, and raise no floating-point exceptions.
constexpr int kRounding = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

inline __m256 load8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline void store8(uint16_t* p, __m256 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, kRounding));
}

// At least eight elements (callers send fewer to the portable kernels, which give the
// same bits).
template <typename Op>
void combine(void* dst_bytes, const void* a_bytes, const void* b_bytes, uint64_t count, Op op) {
  auto* dst = static_cast<uint16_t*>(dst_bytes);
  const auto* a = static_cast<const uint16_t*>(a_bytes);
  const auto* b = static_cast<const uint16_t*>(b_bytes);
  // The last eight elements are computed first and stored last: the vector overlaps
  // the loop's final one by up to seven elements, which receive the same values twice,
  // so the tail needs no scalar loop. Were it computed after the loop, dst being a or b
  // would have its inputs overwritten.
  const uint64_t last = count - 8;
  const __m256 tail = op(load8(a + last), load8(b + last));
  uint64_t i = 0;
  // Two vectors per iteration keep both conversion units busy on data in cache.
  for (; i + 16 <= count; i += 16) {
    const __m256 low = op(load8(a + i), load8(b + i));
    const __m256 high = op(load8(a + i + 8), load8(b + i + 8));
    store8(dst + i, low);
    store8(dst + i + 8, high);
  }
  if (i + 8 <= count) store8(dst + i, op(load8(a + i), load8(b + i)));
  store8(dst + last, tail);
}

}  // namespace

void reduce_f16c(ReduceOp op, void* dst, const void* a, const void* b, uint64_t count) {
  if (count < 8) return reduce_portable(op, dst, a, b, count);
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return combine(dst, a, b, count, Sum{});
    case ReduceOp::kProduct:
      return combine(dst, a, b, count, Product{});
    case ReduceOp::kMin:
      return combine(dst, a, b, count, Min{});
    case ReduceOp::kMax:
      return combine(dst, a, b, count, Max{});
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      return;  // not defined on float16; reduce_elements() refuses them
  }
}

void divide_f16c(void* data, uint64_t count, uint64_t divisor) {
  if (count < 8) return divide_portable(data, count, divisor);
  combine(data, data, data, count, DivideBy{_mm256_set1_ps(static_cast<float>(divisor))});
}

}  // namespace weft::collectives::reduce::float16_kernels

#pragma GCC pop_options

#else  // not x86-64: no F16C

namespace weft::collectives::reduce::float16_kernels {

bool have_f16c() { return false; }

void reduce_f16c(ReduceOp op, void* dst, const void* a, const void* b, uint64_t count) {
  reduce_portable(op, dst, a, b, count);
}

void divide_f16c(void* data, uint64_t count, uint64_t divisor) {
  divide_portable(data, count, divisor);
}

}  // namespace weft::collectives::reduce::float16_kernels

#endif

// The loops behind reduce_elements() and divide_elements(), as templates over the
// element type and the operation. They are inlined into functions compiled for several
// instruction sets (reduce_kernels.cc), so each such function gets its own
// vectorisation of the same source.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/reduce/half_bits.h"
#include "weft/types.h"

namespace weft::collectives::reduce::elementwise {

// How an element is stored and computed: float16 and bfloat16 in float32.
template <typename T>
struct Lanes {
  using Compute = T;
  static T load(T value) { return value; }
  static T store(T value) { return value; }
};

template <>
struct Lanes<float16> {
  using Compute = float;
  static float load(float16 value) { return half_bits::float16_to_float(value.bits); }
  static float16 store(float value) { return {half_bits::float_to_float16(value)}; }
};

template <>
struct Lanes<bfloat16> {
  using Compute = float;
  static float load(bfloat16 value) { return half_bits::bfloat16_to_float(value.bits); }
  static bfloat16 store(float value) { return {half_bits::float_to_bfloat16(value)}; }
};

// Integer sums and products wrap. Signed overflow is undefined, so they are computed
// unsigned, at least as wide as `unsigned` so that promotion of narrow types cannot
// bring a signed multiplication back.
template <typename T>
using Wrapping = decltype(std::make_unsigned_t<T>{} + 0u);

struct Sum {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wrapping<T>>(a) + static_cast<Wrapping<T>>(b));
    } else {
      return a + b;
    }
  }
};

struct Product {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wrapping<T>>(a) * static_cast<Wrapping<T>>(b));
    } else {
      return a * b;
    }
  }
};

// `a != a` is true only for NaN: testing the first operand as well as the comparison
// makes a NaN in either operand the result.
struct Min {
  template <typename T>
  T operator()(T a, T b) const {
    return (a < b || a != a) ? a : b;
  }
};

struct Max {
  template <typename T>
  T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};

struct BitAnd {
  template <typename T>
  T operator()(T a, T b) const {
    return a & b;
  }
};

struct BitOr {
  template <typename T>
  T operator()(T a, T b) const {
    return a | b;
  }
};

struct BitXor {
  template <typename T>
  T operator()(T a, T b) const {
    return a ^ b;
  }
};

// The final step of kAvg, written as a combination so that it shares the loops.
template <typename Compute>
struct DivideBy {
  Compute divisor;
  Compute operator()(Compute a, Compute) const { return a / divisor; }
};

// dst may be a or b exactly: each element is read before it is written, and no
// iteration reads what another writes, which is what ivdep promises the compiler (so
// it emits no run-time overlap check).
template <typename T, typename Op>
[[gnu::always_inline]] inline void combine(T* dst, const T* a, const T* b, uint64_t count, Op op) {
  using L = Lanes<T>;
#pragma GCC ivdep
  for (uint64_t i = 0; i < count; ++i) dst[i] = L::store(op(L::load(a[i]), L::load(b[i])));
}

// bfloat16 two elements at a time, as the halves of a 32-bit word: the bottom half
// widens with a shift, the top half with a mask, and the rounded results go back
// with a shift and an or. Vectorised, that needs no shuffles, where widening
// element by element costs several per vector.
template <typename Op>
[[gnu::always_inline]] inline void combine(bfloat16* dst, const bfloat16* a, const bfloat16* b,
                                           uint64_t count, Op op) {
  using half_bits::float_of;
  const auto round = half_bits::bfloat16_rounded_result_bits;
  const uint64_t pairs = count / 2;
#pragma GCC ivdep
  for (uint64_t i = 0; i < pairs; ++i) {
    uint32_t x, y;
    std::memcpy(&x, a + 2 * i, sizeof x);
    std::memcpy(&y, b + 2 * i, sizeof y);
    const uint32_t bottom = round(op(float_of(x << 16), float_of(y << 16)));
    const uint32_t top = round(op(float_of(x & 0xffff0000u), float_of(y & 0xffff0000u)));
    const uint32_t result = (bottom >> 16) | top;
    std::memcpy(dst + 2 * i, &result, sizeof result);
  }
  if (count % 2 != 0) {
    using L = Lanes<bfloat16>;
    dst[count - 1] = L::store(op(L::load(a[count - 1]), L::load(b[count - 1])));
  }
}

// One switch per call, then one loop. Bitwise operations exist only for integers; the
// caller has checked op_supports().
template <typename T>
[[gnu::always_inline]] inline void reduce(ReduceOp op, void* dst, const void* a, const void* b,
                                          uint64_t count) {
  T* out = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return combine(out, x, y, count, Sum{});
    case ReduceOp::kProduct:
      return combine(out, x, y, count, Product{});
    case ReduceOp::kMin:
      return combine(out, x, y, count, Min{});
    case ReduceOp::kMax:
      return combine(out, x, y, count, Max{});
    case ReduceOp::kBand:
    case ReduceOp::kBor:
    case ReduceOp::kBxor:
      if constexpr (std::is_integral_v<T>) {
        if (op == ReduceOp::kBand) return combine(out, x, y, count, BitAnd{});
        if (op == ReduceOp::kBor) return combine(out, x, y, count, BitOr{});
        return combine(out, x, y, count, BitXor{});
      }
      return;
  }
}

// Integer division truncating toward zero, exact for every value and divisor >= 1.
// Up to 32 bits it goes through double, which vectorises where integer division does
// not. The operands are exact in double (a divisor above 2^53 need not be, but then
// every quotient is 0 either way). A true quotient just below an integer k lies at
// least 1/divisor below it, and rounding moves it by at most k * 2^-53, less than
// that while k * divisor < 2^53, which 32-bit values guarantee: so truncating the
// rounded quotient gives the true one.
template <typename T>
[[gnu::always_inline]] inline T divide_integer(T value, uint64_t divisor,
                                               double divisor_as_double) {
  if constexpr (sizeof(T) <= 4) {
    return static_cast<T>(static_cast<double>(value) / divisor_as_double);
  } else if constexpr (std::is_signed_v<T>) {
    // The magnitude of the most negative value needs the unsigned type.
    const uint64_t magnitude =
        value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    const uint64_t quotient = magnitude / divisor;
    return static_cast<T>(value < 0 ? 0 - quotient : quotient);
  } else {
    return value / divisor;
  }
}

template <typename T>
[[gnu::always_inline]] inline void divide(void* data, uint64_t count, uint64_t divisor) {
  T* values = static_cast<T*>(data);
  if constexpr (std::is_integral_v<T>) {
    const double divisor_as_double = static_cast<double>(divisor);
    for (uint64_t i = 0; i < count; ++i) {
      values[i] = divide_integer(values[i], divisor, divisor_as_double);
    }
  } else {
    using Compute = typename Lanes<T>::Compute;
    combine(values, values, values, count, DivideBy<Compute>{static_cast<Compute>(divisor)});
  }
}

}  // namespace weft::collectives::reduce::elementwise

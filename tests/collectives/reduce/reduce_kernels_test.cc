#include "collectives/reduce/reduce_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/reduce/float16_kernels.h"
#include "weft/error.h"

namespace weft::collectives::reduce {
namespace {

// ---------------------------------------------------------------------------------
// The reference: arithmetic written independently of the kernels. float16 goes
// through the compiler's _Float16 (libgcc's conversions), bfloat16 through explicit
// rounding of the dropped bits, integers through 128-bit arithmetic cut to width.

float ref_from_half(float16 value) {
  _Float16 half;
  std::memcpy(&half, &value.bits, sizeof half);
  return static_cast<float>(half);
}

float16 ref_to_half(float value) {
  const _Float16 half = static_cast<_Float16>(value);
  float16 result;
  std::memcpy(&result.bits, &half, sizeof half);
  return result;
}

float ref_from_bfloat(bfloat16 value) {
  return std::bit_cast<float>(static_cast<uint32_t>(value.bits) << 16);
}

bfloat16 ref_to_bfloat(float value) {
  if (std::isnan(value)) return {0x7fc0};
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  uint32_t kept = bits >> 16;
  const uint32_t dropped = bits & 0xffffu;
  if (dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u))) ++kept;
  return {static_cast<uint16_t>(kept)};
}

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <typename T>
float widen(T value) {
  if constexpr (std::is_same_v<T, float16>) {
    return ref_from_half(value);
  } else {
    return ref_from_bfloat(value);
  }
}

template <typename T>
T narrow(float value) {
  if constexpr (std::is_same_v<T, float16>) {
    return ref_to_half(value);
  } else {
    return ref_to_bfloat(value);
  }
}

template <typename F>
F reference_float(ReduceOp op, F a, F b) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return a + b;
    case ReduceOp::kProduct:
      return a * b;
    case ReduceOp::kMin:
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return a < b ? a : b;
    case ReduceOp::kMax:
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return a > b ? a : b;
    default:
      ADD_FAILURE() << "no float reference for op " << static_cast<int>(op);
      return a;
  }
}

template <typename T>
T reference_integer(ReduceOp op, T a, T b) {
  // Modular arithmetic on 128 bits; the low bits are the wrapped result.
  using Wide = unsigned __int128;
  const Wide x = static_cast<Wide>(a);
  const Wide y = static_cast<Wide>(b);
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return static_cast<T>(static_cast<uint64_t>(x + y));
    case ReduceOp::kProduct:
      return static_cast<T>(static_cast<uint64_t>(x * y));
    case ReduceOp::kMin:
      return std::min(a, b);
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kBand:
      return static_cast<T>(a & b);
    case ReduceOp::kBor:
      return static_cast<T>(a | b);
    case ReduceOp::kBxor:
      return static_cast<T>(a ^ b);
  }
  return a;
}

template <typename T>
T reference(ReduceOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return reference_integer(op, a, b);
  } else if constexpr (kIsHalf<T>) {
    return narrow<T>(reference_float(op, widen(a), widen(b)));
  } else {
    return reference_float(op, a, b);
  }
}

// Integer division truncating toward zero, on 128 bits.
template <typename T>
T reference_divide(T value, uint64_t divisor) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<__int128>(value) / static_cast<__int128>(divisor));
  } else if constexpr (kIsHalf<T>) {
    return narrow<T>(widen(value) / static_cast<float>(divisor));
  } else {
    return value / static_cast<T>(divisor);
  }
}

// ---------------------------------------------------------------------------------
// Comparing results: bit for bit, except that any NaN matches any NaN.

template <typename T>
bool is_nan(T value) {
  if constexpr (std::is_same_v<T, float16>) {
    return (value.bits & 0x7fffu) > 0x7c00u;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return (value.bits & 0x7fffu) > 0x7f80u;
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(value);
  } else {
    return false;
  }
}

template <typename T>
uint64_t raw_bits(T value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}

template <typename T>
bool same(T expected, T actual) {
  return is_nan(expected) ? is_nan(actual) : raw_bits(expected) == raw_bits(actual);
}

template <typename T>
std::string show(T value) {
  char text[64];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(raw_bits(value)));
  return text;
}

template <typename T>
::testing::AssertionResult all_same(const std::vector<T>& expected, const T* actual) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!same(expected[i], actual[i])) {
      return ::testing::AssertionFailure()
             << "element " << i << " of " << expected.size() << ": expected " << show(expected[i])
             << ", got " << show(actual[i]);
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------
// Inputs: random values with the special ones mixed in often.

template <typename T>
T random_bits(std::mt19937_64& rng) {
  const uint64_t bits = rng();
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

template <typename T>
T sample_value(std::mt19937_64& rng) {
  const uint64_t pick = rng() % 16;
  if constexpr (std::is_integral_v<T>) {
    using Limits = std::numeric_limits<T>;
    const T special[] = {
        Limits::min(), Limits::max(), 0, 1, static_cast<T>(-1), static_cast<T>(Limits::max() - 1)};
    if (pick < 3) return special[rng() % std::size(special)];
    return random_bits<T>(rng);
  } else if constexpr (kIsHalf<T>) {
    // Every bit pattern is a value (NaNs among them); half of the time near 1 so that
    // sums and products round rather than saturate or vanish.
    if (pick < 8) return random_bits<T>(rng);
    const float near_one = std::ldexp(1.0f + static_cast<float>(rng() % 1024) / 1024.0f,
                                      static_cast<int>(rng() % 9) - 4);
    return narrow<T>(rng() % 2 ? near_one : -near_one);
  } else {
    using Limits = std::numeric_limits<T>;
    const T special[] = {Limits::quiet_NaN(),
                         -Limits::quiet_NaN(),
                         Limits::infinity(),
                         -Limits::infinity(),
                         T(0),
                         -T(0),
                         Limits::denorm_min(),
                         -Limits::denorm_min(),
                         Limits::max(),
                         Limits::lowest(),
                         Limits::min()};
    if (pick < 3) return special[rng() % std::size(special)];
    if (pick < 5) return random_bits<T>(rng);
    const T mantissa = static_cast<T>(rng() % (1u << 20)) / T(1u << 20) + T(1);
    const T value = std::ldexp(mantissa, static_cast<int>(rng() % 41) - 20);
    return rng() % 2 ? value : -value;
  }
}

template <typename T>
std::vector<T> sample(size_t count, std::mt19937_64& rng) {
  std::vector<T> values(count);
  for (T& value : values) value = sample_value<T>(rng);
  return values;
}

// ---------------------------------------------------------------------------------
// Driving the kernels.

const ReduceOp kAllOps[] = {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin, ReduceOp::kMax,
                            ReduceOp::kAvg, ReduceOp::kBand,    ReduceOp::kBor, ReduceOp::kBxor};

const char* op_label(ReduceOp op) {
  const char* labels[] = {"sum", "product", "min", "max", "avg", "band", "bor", "bxor"};
  return labels[static_cast<int>(op)];
}

// Vector widths are 16 to 64 bytes, unrolled loops cover up to four vectors: these
// counts reach every remainder path of every element size, and the empty range.
const uint64_t kCounts[] = {0,  1,  2,  3,  7,  8,   9,   15,  16,   17,   31,  32,
                            33, 63, 64, 65, 67, 127, 129, 255, 1023, 1024, 4099};

enum class Alias { kNone, kDstIsA, kDstIsB };

using Kernel = void (*)(ReduceOp op, DType dtype, void* dst, const void* a, const void* b,
                        uint64_t count);

// Elements either side of the range that must stay untouched.
constexpr size_t kGuard = 9;

template <typename T>
::testing::AssertionResult check_reduce(Kernel kernel, ReduceOp op, uint64_t count, Alias alias,
                                        size_t offset, std::mt19937_64& rng) {
  const size_t total = offset + count + kGuard;
  std::vector<T> a = sample<T>(total, rng);
  std::vector<T> b = sample<T>(total, rng);
  std::vector<T> out = sample<T>(total, rng);
  std::vector<T> expected(count);
  for (size_t i = 0; i < count; ++i) expected[i] = reference(op, a[offset + i], b[offset + i]);

  std::vector<T>& target = alias == Alias::kDstIsA ? a : alias == Alias::kDstIsB ? b : out;
  const std::vector<T> before = target;
  kernel(op, dtype_of<T>::value, target.data() + offset, a.data() + offset, b.data() + offset,
         count);

  for (size_t i = 0; i < total; ++i) {
    if (i >= offset && i < offset + count) continue;
    if (raw_bits(target[i]) != raw_bits(before[i])) {
      return ::testing::AssertionFailure() << "element " << i << " outside the range changed";
    }
  }
  return all_same(expected, target.data() + offset);
}

template <typename T>
void check_every_supported_op(Kernel kernel, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (ReduceOp op : kAllOps) {
    if (!op_supports(op, dtype_of<T>::value)) continue;
    for (uint64_t count : kCounts) {
      for (Alias alias : {Alias::kNone, Alias::kDstIsA, Alias::kDstIsB}) {
        for (size_t offset : {0, 1}) {
          EXPECT_TRUE(check_reduce<T>(kernel, op, count, alias, offset, rng))
              << dtype_name(dtype_of<T>::value) << " " << op_label(op) << " count " << count
              << " alias " << static_cast<int>(alias) << " offset " << offset;
        }
      }
    }
  }
}

template <typename T>
class ReduceKernelsTest : public ::testing::Test {};

using AllTypes = ::testing::Types<int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t, float16,
                                  bfloat16, float, double>;

struct DTypeNames {
  template <typename T>
  static std::string GetName(int) {
    return dtype_name(dtype_of<T>::value);
  }
};

TYPED_TEST_SUITE(ReduceKernelsTest, AllTypes, DTypeNames);

TYPED_TEST(ReduceKernelsTest, EverySupportedOpMatchesTheReference) {
  check_every_supported_op<TypeParam>(collectives::reduce::reduce_elements, 1);
}

TYPED_TEST(ReduceKernelsTest, EmptyRangeTouchesNothing) {
  for (ReduceOp op : kAllOps) {
    if (op_supports(op, dtype_of<TypeParam>::value)) {
      reduce_elements(op, dtype_of<TypeParam>::value, nullptr, nullptr, nullptr, 0);
    }
  }
}

TYPED_TEST(ReduceKernelsTest, DivideMatchesTheReference) {
  using T = TypeParam;
  std::mt19937_64 rng(2);
  const uint64_t divisors[] = {1,
                               2,
                               3,
                               7,
                               8,
                               64,
                               1000,
                               uint64_t{1} << 31,
                               ~0u,
                               uint64_t{1} << 32,
                               uint64_t{1} << 53,
                               uint64_t{1} << 63,
                               ~uint64_t{0}};
  for (uint64_t divisor : divisors) {
    for (uint64_t count : kCounts) {
      std::vector<T> data = sample<T>(count + kGuard, rng);
      const std::vector<T> before = data;
      std::vector<T> expected(count);
      for (size_t i = 0; i < count; ++i) expected[i] = reference_divide(data[i], divisor);
      divide_elements(dtype_of<T>::value, data.data(), count, divisor);
      EXPECT_TRUE(all_same(expected, data.data())) << "divisor " << divisor << " count " << count;
      for (size_t i = count; i < data.size(); ++i) {
        EXPECT_EQ(raw_bits(data[i]), raw_bits(before[i])) << "element " << i << " changed";
      }
    }
  }
}

TYPED_TEST(ReduceKernelsTest, DivideByZeroIsRefused) {
  TypeParam value{};
  EXPECT_THROW(divide_elements(dtype_of<TypeParam>::value, &value, 1, 0), Error);
}

// ---------------------------------------------------------------------------------
// Integer specifics.

template <typename T>
class IntegerKernelsTest : public ::testing::Test {};

using IntegerTypes = ::testing::Types<int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t>;
TYPED_TEST_SUITE(IntegerKernelsTest, IntegerTypes, DTypeNames);

TYPED_TEST(IntegerKernelsTest, SumsAndProductsWrap) {
  using T = TypeParam;
  using Limits = std::numeric_limits<T>;
  // Seventeen elements: a full vector for the narrow types' remainders and the tails.
  std::vector<T> a(17, Limits::max());
  std::vector<T> b(17, 1);
  std::vector<T> out(17);
  reduce_elements(ReduceOp::kSum, dtype_of<T>::value, out.data(), a.data(), b.data(), 17);
  for (T value : out) EXPECT_EQ(value, Limits::min());
  // (2^k - 1)^2 and (2^(k-1) - 1)^2 are both 1 modulo 2^k.
  reduce_elements(ReduceOp::kProduct, dtype_of<T>::value, out.data(), a.data(), a.data(), 17);
  for (T value : out) EXPECT_EQ(value, T(1));
}

TYPED_TEST(IntegerKernelsTest, DivisionTruncatesTowardZero) {
  using T = TypeParam;
  if constexpr (std::is_signed_v<T>) {
    std::vector<T> data = {-7, 7, -1, 1, -8, 8, std::numeric_limits<T>::min(), -9, 9};
    divide_elements(dtype_of<T>::value, data.data(), data.size(), 2);
    const std::vector<T> expected = {
        -3, 3, 0, 0, -4, 4, static_cast<T>(std::numeric_limits<T>::min() / 2), -4, 4};
    EXPECT_EQ(data, expected);
    // The most negative value has no positive counterpart; its quotient by its own
    // magnitude is -1, and by anything larger 0.
    using U = std::make_unsigned_t<T>;
    const uint64_t magnitude = static_cast<U>(std::numeric_limits<T>::min());
    std::vector<T> extreme = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
    divide_elements(dtype_of<T>::value, extreme.data(), 2, magnitude);
    EXPECT_EQ(extreme, (std::vector<T>{-1, 0}));
  } else {
    std::vector<T> data = {7, 8, 9, std::numeric_limits<T>::max()};
    divide_elements(dtype_of<T>::value, data.data(), data.size(), 4);
    const std::vector<T> expected = {1, 2, 2, static_cast<T>(std::numeric_limits<T>::max() / 4)};
    EXPECT_EQ(data, expected);
  }
}

// ---------------------------------------------------------------------------------
// Floating-point specifics.

template <typename T>
class FloatKernelsTest : public ::testing::Test {};

using FloatTypes = ::testing::Types<float16, bfloat16, float, double>;
TYPED_TEST_SUITE(FloatKernelsTest, FloatTypes, DTypeNames);

template <typename T>
T from_float(float value) {
  if constexpr (kIsHalf<T>) {
    return narrow<T>(value);
  } else {
    return static_cast<T>(value);
  }
}

TYPED_TEST(FloatKernelsTest, MinAndMaxPropagateNaNFromEitherOperand) {
  using T = TypeParam;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Pairs spread over 37 elements so that they land in vector bodies and tails alike.
  constexpr size_t kCount = 37;
  std::vector<T> a(kCount), b(kCount), out(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    a[i] = from_float<T>(i % 3 == 0 ? nan : static_cast<float>(i));
    b[i] = from_float<T>(i % 3 == 1 ? nan : -static_cast<float>(i));
  }
  for (ReduceOp op : {ReduceOp::kMin, ReduceOp::kMax}) {
    for (bool swap : {false, true}) {
      const T* x = swap ? b.data() : a.data();
      const T* y = swap ? a.data() : b.data();
      reduce_elements(op, dtype_of<T>::value, out.data(), x, y, kCount);
      for (size_t i = 0; i < kCount; ++i) {
        const bool nan_in = i % 3 != 2;
        EXPECT_EQ(is_nan(out[i]), nan_in) << op_label(op) << " element " << i;
        if (!nan_in) {
          const float expected = op == ReduceOp::kMin ? -static_cast<float>(i) : i;
          EXPECT_EQ(raw_bits(out[i]), raw_bits(from_float<T>(expected)));
        }
      }
    }
  }
}

TYPED_TEST(FloatKernelsTest, InfinitiesAndOverflow) {
  using T = TypeParam;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<T> a = {from_float<T>(inf), from_float<T>(inf), from_float<T>(0.0f)};
  std::vector<T> b = {from_float<T>(-inf), from_float<T>(1.0f), from_float<T>(inf)};
  std::vector<T> out(3);
  reduce_elements(ReduceOp::kSum, dtype_of<T>::value, out.data(), a.data(), b.data(), 3);
  EXPECT_TRUE(is_nan(out[0]));
  EXPECT_EQ(raw_bits(out[1]), raw_bits(from_float<T>(inf)));
  reduce_elements(ReduceOp::kProduct, dtype_of<T>::value, out.data(), a.data(), b.data(), 3);
  EXPECT_EQ(raw_bits(out[0]), raw_bits(from_float<T>(-inf)));
  EXPECT_TRUE(is_nan(out[2]));  // 0 * inf
}

// ---------------------------------------------------------------------------------
// The two float16 implementations.

void portable_float16(ReduceOp op, DType, void* dst, const void* a, const void* b, uint64_t count) {
  float16_kernels::reduce_portable(op, dst, a, b, count);
}

void f16c_float16(ReduceOp op, DType, void* dst, const void* a, const void* b, uint64_t count) {
  float16_kernels::reduce_f16c(op, dst, a, b, count);
}

TEST(Float16KernelsTest, PortableKernelsMatchTheReference) {
  check_every_supported_op<float16>(portable_float16, 3);
}

TEST(Float16KernelsTest, F16cKernelsMatchTheReference) {
  if (!float16_kernels::have_f16c()) GTEST_SKIP() << "this CPU has no F16C";
  check_every_supported_op<float16>(f16c_float16, 4);
}

// Every bit pattern against a shuffled copy: both implementations give the same bits,
// NaN payloads included, so ranks with and without F16C agree. Starting three elements
// in leaves a partial last vector.
TEST(Float16KernelsTest, F16cAndPortableAgreeBitForBit) {
  if (!float16_kernels::have_f16c()) GTEST_SKIP() << "this CPU has no F16C";
  std::vector<float16> a(65536), b(65536), fast(65536), portable(65536);
  for (uint32_t i = 0; i < 65536; ++i) a[i].bits = static_cast<uint16_t>(i);
  b = a;
  std::shuffle(b.begin(), b.end(), std::mt19937_64(5));
  for (size_t start : {0, 3}) {
    const size_t count = a.size() - start;
    for (ReduceOp op : {ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kSum, ReduceOp::kProduct}) {
      float16_kernels::reduce_f16c(op, fast.data(), a.data() + start, b.data() + start, count);
      float16_kernels::reduce_portable(op, portable.data(), a.data() + start, b.data() + start,
                                       count);
      for (size_t i = 0; i < count; ++i) {
        // Sums and products of two NaNs may carry either payload, depending on the
        // order the compiler put the operands in; every other result is exact.
        if (op == ReduceOp::kSum || op == ReduceOp::kProduct) {
          ASSERT_TRUE(same(fast[i], portable[i])) << op_label(op) << " element " << i;
        } else {
          ASSERT_EQ(fast[i].bits, portable[i].bits) << op_label(op) << " element " << i;
        }
      }
    }
    for (uint64_t divisor : {1, 3, 7, 1000}) {
      std::copy(a.begin() + start, a.end(), fast.begin());
      std::copy(a.begin() + start, a.end(), portable.begin());
      float16_kernels::divide_f16c(fast.data(), count, divisor);
      float16_kernels::divide_portable(portable.data(), count, divisor);
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(fast[i].bits, portable[i].bits) << "divisor " << divisor << " element " << i;
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Conversions.

TEST(ConversionsTest, Float16EveryBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const float16 half{static_cast<uint16_t>(bits)};
    const float value = collectives::reduce::float16_to_float(half);
    if (is_nan(half)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << bits;
      ASSERT_TRUE(is_nan(collectives::reduce::float_to_float16(value))) << std::hex << bits;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(value), std::bit_cast<uint32_t>(ref_from_half(half)))
          << std::hex << bits;
      ASSERT_EQ(collectives::reduce::float_to_float16(value).bits, bits) << std::hex << bits;
    }
  }
}

TEST(ConversionsTest, Bfloat16EveryBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const bfloat16 half{static_cast<uint16_t>(bits)};
    const float value = collectives::reduce::bfloat16_to_float(half);
    if (is_nan(half)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << bits;
      ASSERT_TRUE(is_nan(collectives::reduce::float_to_bfloat16(value))) << std::hex << bits;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(value), bits << 16) << std::hex << bits;
      ASSERT_EQ(collectives::reduce::float_to_bfloat16(value).bits, bits) << std::hex << bits;
    }
  }
}

// Floats spread over every exponent (a stride through all 2^32 bit patterns) and the
// neighbourhood of every float16 value and every midpoint between two of them.
TEST(ConversionsTest, FloatToHalfFormatsMatchTheReference) {
  std::vector<uint32_t> patterns;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4093) {
    patterns.push_back(static_cast<uint32_t>(bits));
  }
  for (uint32_t half = 0; half < 65536; ++half) {
    const uint32_t exact = std::bit_cast<uint32_t>(ref_from_half(float16{uint16_t(half)}));
    for (uint32_t delta : {0u, 1u, 0xfffu, 0x1000u, 0x1001u}) {
      patterns.push_back(exact + delta);
      patterns.push_back(exact - delta);
    }
  }
  for (uint32_t bits : patterns) {
    const float value = std::bit_cast<float>(bits);
    ASSERT_TRUE(same(ref_to_half(value), collectives::reduce::float_to_float16(value)))
        << std::hex << bits;
    ASSERT_TRUE(same(ref_to_bfloat(value), collectives::reduce::float_to_bfloat16(value)))
        << std::hex << bits;
  }
}

TEST(ConversionsTest, Float16RoundsTiesToEven) {
  struct Case {
    float value;
    uint16_t bits;
  };
  const Case cases[] = {
      {1.0f + 0x1p-11f, 0x3c00},             // halfway to 1 + 2^-10: down to the even 1
      {1.0f + 3 * 0x1p-11f, 0x3c02},         // halfway between odd and even: up
      {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01},  // just above halfway: up
      {2049.0f, 0x6800},                     // 2048 and 2050: down to 2048
      {2051.0f, 0x6802},                     // 2050 and 2052: up to 2052
      {65504.0f, 0x7bff},                    // the largest float16
      {65519.0f, 0x7bff},                    // below the midpoint to 65536
      {65520.0f, 0x7c00},                    // the midpoint: to even, which is infinity
      {-65520.0f, 0xfc00},
      {1e10f, 0x7c00},
      {0x1p-24f, 0x0001},             // the smallest subnormal
      {0x1p-25f, 0x0000},             // half of it: down to the even zero
      {3 * 0x1p-25f, 0x0002},         // 1.5 steps: up to the even 2
      {0x1p-25f + 0x1p-40f, 0x0001},  // just above half a step: up
      {0x1p-14f - 0x1p-25f, 0x0400},  // between the largest subnormal and 2^-14
      {0x1p-14f, 0x0400},             // the smallest normal
      {-0.0f, 0x8000},
      {std::numeric_limits<float>::denorm_min(), 0x0000},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(collectives::reduce::float_to_float16(c.value).bits, c.bits) << c.value;
  }
  EXPECT_EQ(collectives::reduce::float16_to_float(float16{0x0001}), 0x1p-24f);
  EXPECT_EQ(collectives::reduce::float16_to_float(float16{0x03ff}), 0x1p-14f - 0x1p-24f);
  EXPECT_EQ(collectives::reduce::float16_to_float(float16{0x7c00}),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(collectives::reduce::float16_to_float(float16{0xfc00}),
            -std::numeric_limits<float>::infinity());
}

TEST(ConversionsTest, Bfloat16RoundsTiesToEven) {
  struct Case {
    uint32_t float_bits;
    uint16_t bits;
  };
  const Case cases[] = {
      {0x3f808000, 0x3f80},                        // halfway, even below: down
      {0x3f818000, 0x3f82},                        // halfway, odd below: up
      {0x3f808001, 0x3f81},                        // just above halfway: up
      {0x3f807fff, 0x3f80},                        // just below halfway: down
      {0x7f7fffff, 0x7f80},                        // the largest float rounds to infinity
      {0xff7fffff, 0xff80}, {0x00008000, 0x0000},  // subnormal halfway: to the even zero
      {0x00018000, 0x0002},                        // subnormal halfway, odd below: up
      {0x80000000, 0x8000},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(collectives::reduce::float_to_bfloat16(std::bit_cast<float>(c.float_bits)).bits,
              c.bits)
        << std::hex << c.float_bits;
  }
  // NaNs whose payload sits only in the dropped bits, or would carry into the sign.
  for (uint32_t nan : {0x7f800001u, 0x7fffffffu, 0xff800001u, 0xffffffffu}) {
    EXPECT_TRUE(is_nan(collectives::reduce::float_to_bfloat16(std::bit_cast<float>(nan))))
        << std::hex << nan;
  }
}

// ---------------------------------------------------------------------------------
// Which operations exist on which dtypes.

TEST(OpSupportsTest, TruthTable) {
  // Rows: ops in ReduceOp order; columns: dtypes in DType order (int8, uint8, int32,
  // uint32, int64, uint64, float16, bfloat16, float32, float64).
  const bool table[kNumReduceOps][kNumDTypes] = {
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // sum
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // product
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // min
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // max
      {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // avg
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // band
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // bor
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  // bxor
  };
  for (int op = 0; op < kNumReduceOps; ++op) {
    for (int dtype = 0; dtype < kNumDTypes; ++dtype) {
      EXPECT_EQ(
          collectives::reduce::op_supports(static_cast<ReduceOp>(op), static_cast<DType>(dtype)),
          table[op][dtype])
          << op_label(static_cast<ReduceOp>(op)) << " on " << dtype_name(static_cast<DType>(dtype));
    }
  }
  EXPECT_FALSE(
      collectives::reduce::op_supports(static_cast<ReduceOp>(kNumReduceOps), DType::kInt32));
  EXPECT_FALSE(collectives::reduce::op_supports(ReduceOp::kSum, static_cast<DType>(kNumDTypes)));
}

TEST(OpSupportsTest, UnsupportedCombinationsAreRefused) {
  float a = 1, b = 2, out = 0;
  EXPECT_THROW(
      collectives::reduce::reduce_elements(ReduceOp::kBxor, DType::kFloat32, &out, &a, &b, 1),
      Error);
  EXPECT_EQ(out, 0);
}

}  // namespace
}  // namespace weft::collectives::reduce

// float16 and bfloat16 conversions on raw bits, inline and free of branches so that
// the kernels' loops vectorise around them (every case is computed and the right one
// selected). Rounding is to nearest, ties to even.
//
// The float16 conversions give exactly what x86's F16C instructions give, NaN payloads
// included (a NaN keeps its sign and leading payload bits and becomes quiet), so a
// machine without F16C computes the same bits as one with it.
#pragma once

#include <cstdint>
#include <cstring>

namespace weft::collectives::reduce::half_bits {

inline uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float float16_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  // Exponent and mantissa moved to float's positions.
  const uint32_t shifted = static_cast<uint32_t>(half & 0x7fffu) << 13;
  const uint32_t exponent = shifted & 0x0f800000u;
  // Normal numbers only need the exponent bias changed from 15 to 127.
  const uint32_t normal = shifted + ((127u - 15u) << 23);
  // Infinity and NaN: the all-ones exponent; a NaN becomes quiet.
  const uint32_t special =
      (shifted + ((255u - 31u) << 23)) | (shifted > 0x0f800000u ? 0x00400000u : 0);
  // Subnormals (and zero): give the mantissa the exponent 2^-14 with an implicit one,
  // then subtract that one exactly in float arithmetic, which normalises the result.
  const uint32_t subnormal = bits_of(float_of(shifted + (113u << 23)) - float_of(113u << 23));
  const uint32_t magnitude =
      exponent == 0x0f800000u ? special : (exponent == 0 ? subnormal : normal);
  return float_of(sign | magnitude);
}

inline uint16_t float_to_float16(float value) {
  const uint32_t bits = bits_of(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  // Normal results: rebias the exponent and round at bit 13. Adding 0xfff plus the
  // lowest kept bit rounds half-way cases to even; a carry out of the mantissa moves
  // into the exponent, up to infinity, which is right.
  const uint32_t odd = (magnitude >> 13) & 1u;
  const uint32_t normal = (magnitude - ((127u - 15u) << 23) + 0xfffu + odd) >> 13;
  // Subnormal results (below 2^-14): adding 0.5 puts float's last mantissa bit at
  // 2^-24, float16's smallest step, so the float addition does the rounding (to
  // nearest even, the rounding mode weft never changes).
  const uint32_t subnormal = bits_of(float_of(magnitude) + 0.5f) - bits_of(0.5f);
  const uint32_t nan = 0x7e00u | ((magnitude >> 13) & 0x3ffu);
  const uint32_t half = magnitude > 0x7f800000u     ? nan
                        : magnitude >= (143u << 23) ? 0x7c00u  // 65536 and up: infinity
                        : magnitude < (113u << 23)  ? subnormal
                                                    : normal;
  return static_cast<uint16_t>(sign | half);
}

inline float bfloat16_to_float(uint16_t value) {
  return float_of(static_cast<uint32_t>(value) << 16);
}

// `value` rounded to bfloat16, left in the top 16 bits of a float's bits (the bottom
// 16 are zero), which is where bfloat16_to_float() expects it.
inline uint32_t bfloat16_rounded_bits(float value) {
  const uint32_t bits = bits_of(value);
  // Round at bit 16, half-way cases to even; carries reach infinity correctly.
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  // Rounding could carry a NaN's payload into the sign; keep its top bits, quieted.
  const uint32_t nan = (bits | 0x00400000u) & 0xffff0000u;
  return (bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded;
}

// The same for the result of an arithmetic operation or choice on values widened from
// bfloat16, where a NaN can only be an operand's NaN made quiet or the default NaN:
// either way its bottom 16 bits are zero, rounding cannot carry out of them, and the
// NaN test above can go. The kernels' loops are a quarter shorter for it.
inline uint32_t bfloat16_rounded_result_bits(float result) {
  const uint32_t bits = bits_of(result);
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
}

inline uint16_t float_to_bfloat16(float value) {
  return static_cast<uint16_t>(bfloat16_rounded_bits(value) >> 16);
}

}  // namespace weft::collectives::reduce::half_bits

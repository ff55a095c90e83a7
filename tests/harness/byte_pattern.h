// Message contents that show damage: byte i of message `seed` holds
// (seed * 131 + i) mod 251, so shifted, swapped or truncated data never matches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::testing {

inline std::vector<uint8_t> byte_pattern(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<uint8_t>((seed * 131 + i) % 251);
  return v;
}

}  // namespace weft::testing

// Fnv1a: a 64-bit FNV-1a hash over the bytes of plain values. For fingerprints that
// ranks compare (new_group's rank lists) and for cache keys, not for security.
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::base {

class Fnv1a {
 public:
  template <typename T>
  void add(const T& value) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    for (size_t i = 0; i < sizeof value; ++i) hash_ = (hash_ ^ bytes[i]) * 1099511628211ull;
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 1469598103934665603ull;
};

}  // namespace weft::base

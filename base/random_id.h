// 64 bits from the system's entropy source: job ids, nonces and tokens that processes
// started at the same moment must not share.
#pragma once

#include <cstdint>
#include <random>

namespace weft::base {

inline uint64_t random_id() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace weft::base

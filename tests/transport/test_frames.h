// What the link tests send: a frame header for a payload of a given size and tag, and
// a payload whose every byte depends on its offset and a seed, so that a byte out of
// place or from another frame shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "transport/frame.h"

namespace weft::transport::testing {

inline FrameHeader frame(uint64_t payload_bytes, int32_t tag) {
  FrameHeader h;
  h.kind = 1;
  h.tag = tag;
  h.payload_bytes = payload_bytes;
  h.msg_bytes = payload_bytes;
  return h;
}

// Period 251, a prime, so that no power-of-two stride repeats it.
inline std::string pattern(size_t bytes, int seed) {
  std::string s(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>((i * 131 + seed * 7) % 251);
  return s;
}

}  // namespace weft::transport::testing

// One-byte messages that order two ranks' steps in a test: one rank signals, the other
// waits for it, so what follows the wait is known to happen after what preceded the
// signal.
#pragma once

#include <cstdint>
#include <span>

#include "weft/weft.h"

namespace weft::testing {

inline void signal_peer(int peer, int tag) {
  uint8_t token = 1;
  weft::send(weft::view(std::span(&token, 1)), peer, tag);
}

inline void wait_for_peer(int peer, int tag) {
  uint8_t token = 0;
  weft::recv(weft::view(std::span(&token, 1)), peer, tag);
}

}  // namespace weft::testing

// RawSocketPair: the baseline weft-bench measures weft against: one plain TCP
// connection between the two ranks (TCP_NODELAY, blocking sockets, no framing), driven
// with the simplest loops that can move the bytes. It is set up through weft itself:
// rank 0 listens on a free port and sends it to rank 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/socket.h"

namespace weft::bench {

class RawSocketPair {
 public:
  // Collective over ranks 0 and 1 of the world.
  explicit RawSocketPair(int rank);

  void send(const void* data, size_t bytes);
  // Busy-polls (MSG_DONTWAIT) as weft's blocking calls do in their spinning phase.
  void recv(void* data, size_t bytes);

 private:
  base::Fd fd_;
};

}  // namespace weft::bench

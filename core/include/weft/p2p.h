// Point-to-point messages.
//
// Ranks are ranks in `group` (default: the world). Tags are >= 0. Messages between
// one pair of processes in one group are received in the order they were sent (MPI's
// non-overtaking rule), whatever their sizes; a receive takes the first message that
// matches its source and tag. The receive buffer may be larger than the message (the
// Request says how many bytes arrived) but its dtype must be the sender's; a message
// larger than the buffer fails the receive with InvalidArgument and writes nothing.
// Zero-byte messages are allowed. Several threads may communicate at once.
#pragma once

#include "weft/group.h"
#include "weft/request.h"
#include "weft/tensor.h"
#include "weft/timeout.h"

namespace weft {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

// Blocks until the message has left this process's buffer (small messages) or has been
// matched and transferred (large ones).
void send(const Tensor& tensor, int dst, int tag = 0, const Group& group = Group(),
          Timeout timeout = kDefaultTimeout);

// Blocks until a matching message has arrived in `tensor`; returns its source rank.
int recv(const Tensor& tensor, int src = kAnySource, int tag = kAnyTag,
         const Group& group = Group(), Timeout timeout = kDefaultTimeout);

Request isend(const Tensor& tensor, int dst, int tag = 0, const Group& group = Group());
Request irecv(const Tensor& tensor, int src = kAnySource, int tag = kAnyTag,
              const Group& group = Group());

}  // namespace weft

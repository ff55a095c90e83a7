// Point-to-point calls for a caller that has checked the arguments already: the MPI
// layer's plain messages (mpi/src/point_to_point.cc), whose checks of the buffer, the
// rank and the tag are the public API's. They skip only those checks, about a fifth of
// a small message's instructions through MPI; the engine calls, the timeouts and the
// failures are the public API's.
//
// The caller guarantees: `tensor` is host memory whose bytes fit the address space (data
// unless empty); `dst`/`src` is a rank of `group` (a receive also takes kAnySource);
// `tag` is >= 0 (a receive also takes kAnyTag); this process is a member of `group`.
#pragma once

#include "weft/group.h"
#include "weft/p2p.h"
#include "weft/request.h"
#include "weft/tensor.h"

namespace weft::runtime {

void send_prechecked(const Tensor& tensor, int dst, int tag, const Group& group);
RecvResult recv_prechecked(const Tensor& tensor, int src, int tag, const Group& group);
Request isend_prechecked(const Tensor& tensor, int dst, int tag, const Group& group);
Request irecv_prechecked(const Tensor& tensor, int src, int tag, const Group& group);

}  // namespace weft::runtime

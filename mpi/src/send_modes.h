// What persistent requests share with the send modes of send_modes.cc.
#pragma once

#include <weft/weft.h>

namespace weft::mpi {

// A buffered send of `bytes` (already packed) to `peer` of `group` with the core's tag:
// the bytes are copied into space reserved from the attached buffer and go out from
// there, so the call returns at once. MPI_ERR_BUFFER, naming the sizes, when the
// attached buffer lacks the room (or none is attached).
void buffered_send(const weft::Tensor& bytes, int peer, int core_tag, const weft::Group& group);

}  // namespace weft::mpi

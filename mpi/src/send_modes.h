// What persistent requests share with the send modes of send_modes.cc.
#pragma once

#include <mpi.h>
#include <weft/weft.h>

#include <cstddef>
#include <cstdint>

#include "mpi/src/objects.h"

namespace weft::mpi {

// A buffered send of `bytes` (already packed) to `peer` of `comm` with the core's tag:
// the bytes are copied into space reserved from the buffer attached to `comm`, or else
// to the process, and go out from there, so the call returns at once. MPI_ERR_BUFFER,
// naming the sizes, when that buffer lacks the room (or none is attached).
void buffered_send(const weft::Tensor& bytes, int peer, int core_tag, const MPI_ABI_Comm& comm);

// MPI_Sendrecv_replace's last step: the `bytes` received into a copy, moved into the
// `count` elements of `datatype` at `buf`.
void unpack_replacement(const std::byte* received, uint64_t bytes, void* buf, MPI_Count count,
                        MPI_Datatype datatype);

}  // namespace weft::mpi

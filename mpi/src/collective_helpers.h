// What the collectives share: their buffers' part in a started operation, and the
// check that a send block and a receive block agree.
#pragma once

#include <mpi.h>
#include <weft/tensor.h>

#include "mpi/src/block_buffer.h"
#include "mpi/src/started.h"

namespace weft::mpi {

// A collective's receive buffer: kept until the end, and when staged, its blocks spread
// into the program's memory then.
void receive_into(Started& started, const BlockBuffer& buffer);

// A collective's send buffer: packed now when staged, and kept until the end.
weft::Tensor send_from(Started& started, const BlockBuffer& buffer);

// This rank's part of a gathering into `blocks`: with MPI_IN_PLACE its own block of
// them (packed there first when staged), otherwise its send buffer, packed.
weft::Tensor contribution(Started& started, const void* sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, const BlockBuffer& blocks, int me);

// MPI_ERR_TRUNCATE unless the sender's and the receiver's block are the same size.
void check_same_bytes(const weft::Tensor& send, const weft::Tensor& recv);

}  // namespace weft::mpi

#include "mpi/src/collective_helpers.h"

#include <string>

#include "mpi/src/errors.h"

namespace weft::mpi {

void receive_into(Started& started, const BlockBuffer& buffer) {
  started.keep(buffer.keep_alive());
  if (buffer.staged()) started.then([buffer] { buffer.unpack(); });
}

weft::Tensor send_from(Started& started, const BlockBuffer& buffer) {
  buffer.pack();
  started.keep(buffer.keep_alive());
  return buffer.tensor();
}

weft::Tensor contribution(Started& started, const void* sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, const BlockBuffer& blocks, int me) {
  if (sendbuf != MPI_IN_PLACE) {
    return send_from(started, BlockBuffer::single(sendbuf, sendcount, sendtype, "send"));
  }
  blocks.pack(me);
  return blocks.block(me);
}

void check_same_bytes(const weft::Tensor& send, const weft::Tensor& recv) {
  if (send.bytes() != recv.bytes()) {
    throw MpiError(MPI_ERR_TRUNCATE, "the send block has " + std::to_string(send.bytes()) +
                                         " bytes but the receive block " +
                                         std::to_string(recv.bytes()));
  }
}

}  // namespace weft::mpi

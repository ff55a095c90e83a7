// The object behind an MPI_Message: a message that MPI_Mprobe or MPI_Improbe took out
// of matching, waiting for MPI_Mrecv or MPI_Imrecv. MPI_MESSAGE_NULL and
// MPI_MESSAGE_NO_PROC (a probe of MPI_PROC_NULL's) keep the standard's small handles.
#pragma once

#include <mpi.h>
#include <weft/p2p.h>

#include <cstdint>

struct MPI_ABI_Message {
  static constexpr uint32_t kMagic = 0x574d5347;  // "WMSG"
  uint32_t magic = kMagic;
  weft::MatchedMessage message;
  MPI_Comm comm = MPI_COMM_NULL;  // where it was matched, whose group receives it
};

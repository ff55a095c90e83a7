// User-defined reduction operations (MPI_Op_create). A user op's handle is the address
// of an MPI_ABI_Op; the predefined ops keep the standard's small constant handles.
#pragma once

#include <mpi.h>

#include <cstdint>

struct MPI_ABI_Op {
  static constexpr uint32_t kMagic = 0x574f5052;  // "WOPR"
  uint32_t magic = kMagic;
  MPI_User_function* function = nullptr;
  bool commutative = true;
};

namespace weft::mpi {

// The user op behind a handle; MpiError(MPI_ERR_OP) for MPI_OP_NULL, a predefined op or
// garbage.
MPI_ABI_Op& op_of(MPI_Op op);

// The user op behind a handle, or nullptr for MPI_OP_NULL and the predefined ops;
// MpiError(MPI_ERR_OP) for garbage or a freed op.
const MPI_ABI_Op* user_op_or_null(MPI_Op op);

}  // namespace weft::mpi

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
  // MPI_Op_create_c's function, which takes its length as an MPI_Count (and `function`
  // is then null).
  MPI_User_function_c* function_c = nullptr;
};

namespace weft::mpi {

// The user op behind a handle; MpiError(MPI_ERR_OP) for MPI_OP_NULL, a predefined op or
// garbage.
MPI_ABI_Op& op_of(MPI_Op op);

// The user op behind a handle, or nullptr for MPI_OP_NULL and the predefined ops;
// MpiError(MPI_ERR_OP) for garbage or a freed op.
const MPI_ABI_Op* user_op_or_null(MPI_Op op);

// inout[i] = in[i] op inout[i] for `count` elements of `datatype`, `extent` bytes apart,
// by the op's function: at once for a large-count function (MPI_Op_create_c), and in
// pieces of at most INT_MAX elements for a classic one, whose length is an int (the
// pieces are independent, the op being elementwise).
void call_user_op(const MPI_ABI_Op& user, const void* in, void* inout, uint64_t count,
                  int64_t extent, MPI_Datatype datatype);

}  // namespace weft::mpi

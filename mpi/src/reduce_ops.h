// The predefined reduction operations of MPI on the predefined datatypes, applied
// locally as MPI's user functions are: inout[i] = in[i] op inout[i]. Collectives use the
// core's own reductions where they exist (see core_op) and this everywhere else.
#pragma once

#include <mpi.h>
#include <weft/collectives.h>

#include <cstddef>
#include <optional>

#include "mpi/src/datatypes.h"

namespace weft::mpi {

// MpiError(MPI_ERR_OP) for an op that is not predefined, or not defined on the type
// (MIN on a complex, BAND on a float, MAXLOC on anything but a pair, ...).
void check_op(MPI_Op op, const TypeInfo& type);

void reduce_local(MPI_Op op, const TypeInfo& type, const void* in, void* inout, size_t count);

// The core's operation for `op` on `type`, when the core has both.
std::optional<weft::ReduceOp> core_op(MPI_Op op, const TypeInfo& type);

}  // namespace weft::mpi

// The reduction operations of MPI, applied locally as MPI's user functions are:
// inout[i] = in[i] op inout[i]. The predefined ones are computed here on the predefined
// datatypes; a user-defined one (MPI_Op_create) calls its function. Collectives use the
// core's own reductions where they exist (see core_op) and this everywhere else.
#pragma once

#include <mpi.h>
#include <weft/collectives.h>

#include <cstddef>
#include <optional>

#include "mpi/src/datatypes.h"

namespace weft::mpi {

// MpiError(MPI_ERR_OP) for MPI_OP_NULL, an invalid or freed op, or a predefined op not
// defined on the type (MIN on a complex, BAND on a float, MAXLOC on anything but a pair,
// ...). A user-defined op is accepted on every type.
void check_op(MPI_Op op, const TypeInfo& type);
// Whether `op` is a predefined reduction defined on `type`: what check_op accepts, less
// the user-defined ops. No error: the one-sided fast paths ask it.
bool predefined_op_applies(MPI_Op op, const TypeInfo& type);

// inout = in op inout, elementwise over `count` elements. A user-defined op's function
// is called as f(in, inout, &len, &datatype), in pieces of at most INT_MAX elements.
void reduce_local(MPI_Op op, const TypeInfo& type, const void* in, void* inout, size_t count);

// The core's operation for `op` on `type`, when the core has both; never for a
// user-defined op, which collectives combine in rank order.
std::optional<weft::ReduceOp> core_op(MPI_Op op, const TypeInfo& type);

}  // namespace weft::mpi

// A reduction of `count` elements of a datatype with an operation, as the collectives
// compute it: on each contribution's packed bytes (a BlockBuffer's), so a derived
// datatype reduces as well as a predefined one.
//  - A predefined datatype, or a predefined operation on a derived datatype whose basic
//    elements are all one predefined type (a vector of MPI_DOUBLE, a contiguous run of
//    MPI_2INT): the packed bytes are an array of that type, reduced element by element,
//    in the core where it has the operation.
//  - A user-defined operation on a derived datatype: its function is called as the
//    standard says, with the derived datatype's handle and the elements in their own
//    layout, so each pair of contributions is unpacked into scratch memory first.
#pragma once

#include <mpi.h>
#include <weft/collectives.h>
#include <weft/tensor.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "mpi/src/datatypes.h"

namespace weft::mpi {

struct Typemap;

class Reduction {
 public:
  // MPI_ERR_OP for an operation not defined on the datatype's elements, MPI_ERR_TYPE for
  // a predefined operation on a derived datatype mixing basic types (or of a padded
  // pair type such as MPI_DOUBLE_INT, whose packed values lose their stride).
  Reduction(MPI_Op op, MPI_Datatype datatype, int64_t count);

  // The packed bytes of one contribution.
  uint64_t bytes() const { return static_cast<uint64_t>(count_) * element_bytes_; }
  // The packed bytes of one element of the datatype.
  uint64_t element_bytes() const { return element_bytes_; }

  // The core's operation, when the core reduces these elements itself, and the packed
  // bytes `data` as the core's typed tensor for it.
  std::optional<weft::ReduceOp> core_op() const { return core_op_; }
  weft::Tensor typed(void* data) const { return typed(data, count_); }
  // The same for `count` elements of the datatype (a reduce-scatter's share).
  weft::Tensor typed(void* data, uint64_t count) const;
  // The predefined values one element of the datatype packs into (core_op() only).
  uint64_t values_per_element() const { return values_per_element_; }

  // inout = in op inout, on packed contributions.
  void apply(const std::byte* in, std::byte* inout) const;

  // Contributions first..last of `all` (packed, one after another) combined in rank
  // order, x_first op (... op x_last), into `out` (packed): every rank gets the same bits
  // and a non-commutative operation keeps its order.
  void combine(int first, int last, const std::byte* all, std::byte* out) const;

 private:
  MPI_Op op_;
  MPI_Datatype datatype_;
  int64_t count_;
  // A derived datatype's, kept so that a pending reduction outlives MPI_Type_free.
  std::shared_ptr<const Typemap> typemap_;
  const TypeInfo* value_ = nullptr;  // null: a user-defined op on a derived datatype
  uint64_t values_per_element_ = 1;
  uint64_t element_bytes_ = 0;
  std::optional<weft::ReduceOp> core_op_;
};

}  // namespace weft::mpi

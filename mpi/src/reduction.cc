#include "mpi/src/reduction.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/reduce_ops.h"
#include "mpi/src/user_ops.h"

namespace weft::mpi {
namespace {

// Memory for `count` elements of a typemap in their own layout; `origin` is the address
// the first element has (its data may start before or after it).
class Scratch {
 public:
  Scratch(const Typemap& t, int64_t count) {
    if (count == 0 || t.size == 0) return;
    int64_t last = (count - 1) * t.extent;
    low_ = std::min<int64_t>(0, last) + t.true_lb;
    int64_t high = std::max<int64_t>(0, last) + t.true_lb + t.true_extent;
    bytes_.resize(static_cast<size_t>(high - low_));
  }
  // Computed as an integer: the origin may lie outside the scratch bytes.
  void* origin() {
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(bytes_.data()) -
                                   static_cast<uintptr_t>(low_));
  }

 private:
  std::vector<std::byte> bytes_;
  int64_t low_ = 0;
};

}  // namespace

Reduction::Reduction(MPI_Op op, MPI_Datatype datatype, int64_t count)
    : op_(op), datatype_(datatype), count_(count) {
  if (count < 0) {
    throw MpiError(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  }
  if (!is_derived(datatype)) {
    value_ = &type_info(datatype);
    check_op(op, *value_);
    element_bytes_ = value_->extent;
    core_op_ = weft::mpi::core_op(op, *value_);
    return;
  }
  check_committed(datatype);
  typemap_ = typemap_of(datatype);
  const Typemap& t = *typemap_;
  element_bytes_ = t.size;
  if (user_op_or_null(op) != nullptr) return;  // the function sees the derived layout
  if (op == MPI_OP_NULL) throw MpiError(MPI_ERR_OP, "the operation is MPI_OP_NULL");
  if (!t.uniform_basic_type) {
    throw MpiError(MPI_ERR_TYPE,
                   "a predefined operation needs a derived datatype whose basic elements are "
                   "all one predefined type; this one mixes several");
  }
  const TypeInfo& value = type_info(*t.uniform_basic_type);
  if (value.size != value.extent) {
    throw MpiError(MPI_ERR_TYPE, std::string("a predefined operation on a derived datatype of ") +
                                     value.name +
                                     " is not supported: its packed values lose their padding");
  }
  check_op(op, value);
  value_ = &value;
  values_per_element_ = value.size == 0 ? 0 : t.size / value.size;
  core_op_ = weft::mpi::core_op(op, value);
}

weft::Tensor Reduction::typed(void* data, uint64_t count) const {
  return weft::Tensor(data, count * values_per_element_, *core_dtype(value_->element));
}

void Reduction::apply(const std::byte* in, std::byte* inout) const {
  if (value_ != nullptr) {
    reduce_local(op_, *value_, in, inout,
                 static_cast<size_t>(count_) * static_cast<size_t>(values_per_element_));
    return;
  }
  if (count_ == 0) return;
  const Typemap& t = *typemap_;
  Scratch a(t, count_), b(t, count_);
  unpack(in, bytes(), static_cast<uint64_t>(count_), t, a.origin());
  unpack(inout, bytes(), static_cast<uint64_t>(count_), t, b.origin());
  call_user_op(*user_op_or_null(op_), a.origin(), b.origin(), static_cast<uint64_t>(count_),
               t.extent, datatype_);
  pack(b.origin(), static_cast<uint64_t>(count_), t, inout);
}

void Reduction::combine(int first, int last, const std::byte* all, std::byte* out) const {
  size_t block = static_cast<size_t>(bytes());
  if (block == 0) return;
  std::vector<std::byte> acc(all + static_cast<size_t>(last) * block,
                             all + static_cast<size_t>(last + 1) * block);
  for (int r = last - 1; r >= first; --r) apply(all + static_cast<size_t>(r) * block, acc.data());
  std::memcpy(out, acc.data(), block);
}

}  // namespace weft::mpi

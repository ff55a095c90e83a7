#include "tensors.h"

#include <c10/util/Exception.h>

namespace weft::torch_backend {
namespace {

// weft's dtype for a torch dtype it reduces, or nothing.
std::optional<weft::DType> reducible_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return weft::DType::kFloat32;
    case at::kDouble:
      return weft::DType::kFloat64;
    case at::kHalf:
      return weft::DType::kFloat16;
    case at::kBFloat16:
      return weft::DType::kBFloat16;
    case at::kChar:
      return weft::DType::kInt8;
    case at::kByte:
      return weft::DType::kUInt8;
    case at::kBool:
      return weft::DType::kUInt8;  // 0 or 1 in one byte
    case at::kInt:
      return weft::DType::kInt32;
    case at::kLong:
      return weft::DType::kInt64;
    case at::kUInt32:
      return weft::DType::kUInt32;
    case at::kUInt64:
      return weft::DType::kUInt64;
    default:
      return std::nullopt;
  }
}

bool is_sum(const c10d::ReduceOp& op) {
  return op == c10d::ReduceOp::SUM || op == c10d::ReduceOp::AVG || op == c10d::ReduceOp::PREMUL_SUM;
}

Staged make_staged(const at::Tensor& original, at::Tensor contiguous, weft::DType dtype,
                   uint64_t count) {
  weft::Tensor view(contiguous.data_ptr(), count, dtype);
  return {original, std::move(contiguous), view};
}

// The weft view of contiguous memory of `original`'s dtype.
Staged view_of(const at::Tensor& original, at::Tensor contiguous, bool reducing,
               const c10d::ReduceOp& op, const Caller& caller, const char* name) {
  const at::ScalarType type = original.scalar_type();
  if (reducing) {
    if (std::optional<weft::DType> dtype = reducible_dtype(type)) {
      return make_staged(original, std::move(contiguous), *dtype,
                         static_cast<uint64_t>(original.numel()));
    }
    if (at::isComplexType(type) && is_sum(op)) {
      // A complex sum is the sums of its real and imaginary parts.
      at::ScalarType real = c10::toRealValueType(type);
      std::optional<weft::DType> dtype = reducible_dtype(real);
      if (dtype) {
        return make_staged(original, std::move(contiguous), *dtype,
                           2 * static_cast<uint64_t>(original.numel()));
      }
    }
    refuse(caller, std::string(name) + " has dtype " + dtype_name(type) +
                       ", which weft does not reduce (it reduces float16/32/64, bfloat16, "
                       "int8/32/64, uint8/32/64 and bool; complex by SUM and AVG only)");
  }
  // Moving: weft's dtype where it has one, else the bytes.
  if (std::optional<weft::DType> dtype = reducible_dtype(type)) {
    return make_staged(original, std::move(contiguous), *dtype,
                       static_cast<uint64_t>(original.numel()));
  }
  return make_staged(original, std::move(contiguous), weft::DType::kUInt8,
                     static_cast<uint64_t>(original.numel()) * original.element_size());
}

}  // namespace

void check_device(const at::Tensor& tensor, const Caller& caller, const char* name) {
  if (!tensor.device().is_cpu()) {
    refuse(caller, std::string(name) + " is on " + tensor.device().str() +
                       ": this build of weft's torch backend moves CPU tensors only");
  }
  if (tensor.is_sparse())
    refuse(caller, std::string(name) + " is sparse: weft takes dense tensors");
}

std::string Caller::prefix() const {
  return std::string("weft ") + op + " (rank " + std::to_string(rank) + "): ";
}

void refuse(const Caller& caller, const std::string& what) {
  C10_THROW_ERROR(ValueError, caller.prefix() + what);
}

void Staged::copy_back() const {
  if (!contiguous.is_same(original)) original.copy_(contiguous);
}

void Staged::use_copy() {
  contiguous = contiguous.clone();
  view = weft::Tensor(contiguous.data_ptr(), view.count(), view.dtype());
}

Staged stage_for_moving(const at::Tensor& tensor, const Caller& caller, const char* name) {
  check_device(tensor, caller, name);
  return view_of(tensor, tensor.contiguous(), false, c10d::ReduceOp::SUM, caller, name);
}

Staged stage_for_reducing(const at::Tensor& tensor, const c10d::ReduceOp& op, const Caller& caller,
                          const char* name) {
  check_device(tensor, caller, name);
  return view_of(tensor, tensor.contiguous(), true, op, caller, name);
}

Staged stage_output(const at::Tensor& tensor, const Caller& caller, const char* name, bool reducing,
                    const c10d::ReduceOp& op) {
  check_device(tensor, caller, name);
  at::Tensor memory =
      tensor.is_contiguous() ? tensor : at::empty_like(tensor, at::MemoryFormat::Contiguous);
  return view_of(tensor, std::move(memory), reducing, op, caller, name);
}

weft::ReduceOp weft_op(const c10d::ReduceOp& op, at::ScalarType dtype, const Caller& caller) {
  const bool boolean = dtype == at::kBool;
  switch (op.op_) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::PREMUL_SUM:
      return boolean ? weft::ReduceOp::kMax : weft::ReduceOp::kSum;
    case c10d::ReduceOp::PRODUCT:
      return boolean ? weft::ReduceOp::kMin : weft::ReduceOp::kProduct;
    case c10d::ReduceOp::MIN:
      return weft::ReduceOp::kMin;
    case c10d::ReduceOp::MAX:
      return weft::ReduceOp::kMax;
    case c10d::ReduceOp::AVG:
      if (boolean) refuse(caller, "AVG of bool tensors is not defined");
      return weft::ReduceOp::kAvg;
    case c10d::ReduceOp::BAND:
      return weft::ReduceOp::kBand;
    case c10d::ReduceOp::BOR:
      return weft::ReduceOp::kBor;
    case c10d::ReduceOp::BXOR:
      return weft::ReduceOp::kBxor;
    default:
      break;
  }
  refuse(caller, "reduce op " + std::to_string(static_cast<int>(op.op_)) + " is not one weft has");
}

void check_same_shapes(const at::TensorList& tensors, const at::TensorList& like,
                       const Caller& caller, const char* name) {
  for (size_t i = 0; i < tensors.size() && i < like.size(); ++i) {
    if (tensors[i].scalar_type() != like[i].scalar_type() ||
        tensors[i].numel() != like[i].numel()) {
      refuse(caller, std::string(name) + "[" + std::to_string(i) + "] has " +
                         std::to_string(tensors[i].numel()) + " elements of " +
                         dtype_name(tensors[i].scalar_type()) + ", but input " + std::to_string(i) +
                         " has " + std::to_string(like[i].numel()) + " of " +
                         dtype_name(like[i].scalar_type()));
    }
  }
}

void check_same_shape(const at::TensorList& tensors, const at::Tensor& first, const Caller& caller,
                      const char* name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].scalar_type() != first.scalar_type() || tensors[i].numel() != first.numel()) {
      refuse(caller, std::string(name) + "[" + std::to_string(i) + "] has " +
                         std::to_string(tensors[i].numel()) + " elements of " +
                         dtype_name(tensors[i].scalar_type()) + ", but the input has " +
                         std::to_string(first.numel()) + " of " + dtype_name(first.scalar_type()));
    }
  }
}

}  // namespace weft::torch_backend

// How torch tensors become what weft's calls take: a dtype weft has, memory in one
// contiguous piece (the tensor's own, or a copy that goes back after the call), and the
// reduction op weft applies. Every refusal names the operation, the rank and the tensor.
#pragma once

#include <ATen/ATen.h>
#include <weft/tensor.h>
#include <weft/types.h>

#include <string>
#include <torch/csrc/distributed/c10d/Types.hpp>

namespace weft::torch_backend {

// Who is asking, for messages: "weft allreduce (rank 1)".
struct Caller {
  const char* op;
  int rank;
  std::string prefix() const;
};

// The memory weft works on for one tensor.
struct Staged {
  at::Tensor original;    // the caller's tensor
  at::Tensor contiguous;  // the same tensor, or a contiguous copy of it
  weft::Tensor view;      // over `contiguous`
  // Writes the result into the caller's tensor where weft worked on a copy.
  void copy_back() const;
  // Makes weft work on a copy, so that changing it (a PREMUL_SUM's scaling) leaves the
  // caller's tensor as it was.
  void use_copy();
};

// Moving data only (broadcast, gathers, scatters, send/recv): any dtype, as its bytes
// when weft has no dtype of that width and kind (int16, complex, float8...).
Staged stage_for_moving(const at::Tensor& tensor, const Caller& caller, const char* name);
// Reducing: a dtype weft reduces (float16/32/64, bfloat16, int8/32/64, uint8/32/64,
// bool as uint8, complex as pairs of reals for sums); InvalidArgument-style refusal else.
Staged stage_for_reducing(const at::Tensor& tensor, const c10d::ReduceOp& op, const Caller& caller,
                          const char* name);
// An output that is written whole (an all_gather's output, say): contiguous memory of
// the tensor's dtype, its old contents not copied in.
Staged stage_output(const at::Tensor& tensor, const Caller& caller, const char* name, bool reducing,
                    const c10d::ReduceOp& op);

// The op weft applies for c10d's `op` on `dtype` (bool: SUM is OR, PRODUCT is AND, as
// torch's other backends compute them). PREMUL_SUM is applied by the caller (scaling
// the input) and reduced as SUM.
weft::ReduceOp weft_op(const c10d::ReduceOp& op, at::ScalarType dtype, const Caller& caller);

// Every tensor of a list has the dtype and element count of `first` (c10d's list forms).
void check_same_shape(const at::TensorList& tensors, const at::Tensor& first, const Caller& caller,
                      const char* name);

// "Float", "Long", ...: a dtype as torch names it in messages.
inline std::string dtype_name(at::ScalarType type) { return c10::toString(type); }

// Tensor i of `tensors` has the dtype and element count of `like[i]`.
void check_same_shapes(const at::TensorList& tensors, const at::TensorList& like,
                       const Caller& caller, const char* name);

// Refuses a tensor weft's backend cannot take (not on the CPU, or sparse).
void check_device(const at::Tensor& tensor, const Caller& caller, const char* name);

// Throws the exception torch's backends raise for bad arguments (a ValueError).
[[noreturn]] void refuse(const Caller& caller, const std::string& what);

}  // namespace weft::torch_backend

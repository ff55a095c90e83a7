// Integer-valued data in any dtype, and the serial reference of a reduction.
//
// Every value and every intermediate result is an integer of magnitude <= 256, which
// all ten dtypes hold exactly (float16 and bfloat16 included), so results compare
// exactly, as nccl-tests compare theirs; only kAvg on floating dtypes, where the final
// division rounds, compares within the dtype's precision (relative 2^-7 for bfloat16,
// 2^-10 for float16).
#pragma once

#include <cstdint>
#include <vector>

#include "weft/collectives.h"
#include "weft/tensor.h"

namespace weft::bench {

bool is_integer(DType dtype);
bool is_signed(DType dtype);
void store(DType dtype, void* base, uint64_t i, double v);
double load(DType dtype, const void* base, uint64_t i);

// Element i of rank r's input for a reduction by `op`.
double input_value(DType dtype, ReduceOp op, int rank, uint64_t i);
// Element i of the reduction over ranks `ranks` of input_value.
double reduced_value(DType dtype, ReduceOp op, int ranks, uint64_t i);
// Whether `got` equals the reference `want` (within the kAvg tolerance above).
bool matches(DType dtype, ReduceOp op, double got, double want);

// A buffer of `count` elements of `dtype`.
struct Buffer {
  DType dtype;
  std::vector<std::byte> bytes;
  Buffer(DType dtype, uint64_t count) : dtype(dtype), bytes(count * dtype_size(dtype) + 1) {}
  Tensor tensor(uint64_t offset = 0, uint64_t count = ~uint64_t{0}) {
    uint64_t total = (bytes.size() - 1) / dtype_size(dtype);
    return Tensor(bytes.data() + offset * dtype_size(dtype),
                  count == ~uint64_t{0} ? total - offset : count, dtype);
  }
  void set(uint64_t i, double v) { store(dtype, bytes.data(), i, v); }
  double get(uint64_t i) const { return load(dtype, bytes.data(), i); }
};

}  // namespace weft::bench

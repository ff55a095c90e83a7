// Integer-valued data in any dtype, and the serial reference of a reduction.
//
// Every value and every intermediate result is an integer of magnitude <= 256, which
// all ten dtypes hold exactly (float16 and bfloat16 included), so results compare
// exactly, as nccl-tests compare theirs; only kAvg on floating dtypes, where the final
// division rounds, compares within the dtype's precision (relative 2^-7 for bfloat16,
// 2^-10 for float16).
#pragma once

#include <cstdint>
#include <memory>
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

// Where Buffers live: host memory, unless a test places them in memory of its own that
// it can still read and write directly (the fake device runtime's "device memory").
struct BufferMemory {
  std::byte* (*allocate)(uint64_t bytes) = nullptr;
  void (*release)(std::byte* data) = nullptr;
  Device device;
};
// The placement of Buffers created from now on; nullptr: host memory.
void place_buffers(const BufferMemory* memory);

// A buffer of `count` elements of `dtype` (and one spare byte, so that an empty one
// still has an address).
struct Buffer {
  DType dtype;
  Buffer(DType dtype, uint64_t count);
  // A view of the buffer's memory (which a const Buffer still lets a call write).
  Tensor tensor(uint64_t offset = 0, uint64_t count = ~uint64_t{0}) const {
    uint64_t total = (size_ - 1) / dtype_size(dtype);
    return Tensor(data_.get() + offset * dtype_size(dtype),
                  count == ~uint64_t{0} ? total - offset : count, dtype, device_);
  }
  void set(uint64_t i, double v) { store(dtype, data_.get(), i, v); }
  double get(uint64_t i) const { return load(dtype, data_.get(), i); }

 private:
  uint64_t size_;
  Device device_;
  std::shared_ptr<std::byte> data_;
};

}  // namespace weft::bench

// Element-wise reduction kernels: the arithmetic of every reducing collective.
//
// Each kernel is one loop per (op, dtype) written so that the compiler vectorises it,
// compiled for several instruction sets with the best chosen at run time. float16 and
// bfloat16 are widened to float32, combined, and rounded back (to nearest even) per
// call, so one pairwise step rounds once. kMin and kMax propagate NaN whichever
// operand holds it. kAvg combines like kSum; the division by the group size is a
// separate step, divide_elements(), applied once at the end.
#pragma once

#include <cstdint>

#include "weft/tensor.h"
#include "weft/types.h"

namespace weft::collectives::reduce {

// Whether `op` is defined on `dtype` (bitwise ops need an integer dtype).
bool op_supports(ReduceOp op, DType dtype);

// dst[i] = a[i] op b[i] for i in [0, count). dst may be the same memory as a or b
// (exactly, not partially overlapping). Precondition: op_supports(op, dtype).
void reduce_elements(ReduceOp op, DType dtype, void* dst, const void* a, const void* b,
                     uint64_t count);

// data[i] /= divisor for i in [0, count): the final step of kAvg (integers truncate
// toward zero).
void divide_elements(DType dtype, void* data, uint64_t count, uint64_t divisor);

// The instruction set of the kernels this process runs: "avx512f", "avx2" or "baseline"
// (the loader's choice, which follows the same order), or "baseline (sanitizer build)"
// where the kernels are not compiled per instruction set. For reports (weft-info).
const char* kernel_instruction_set();

// Conversions used by the kernels, and by tests building references.
float float16_to_float(float16 value);
float16 float_to_float16(float value);
float bfloat16_to_float(bfloat16 value);
bfloat16 float_to_bfloat16(float value);

}  // namespace weft::collectives::reduce

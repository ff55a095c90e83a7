// The float16 kernels. With F16C (which every x86 CPU with AVX2 has) the conversions
// are single instructions, eight elements at a time; elsewhere the portable loops do
// the same arithmetic with the same result bits (half_bits.h matches F16C exactly).
// reduce_elements() and divide_elements() choose; tests call both.
#pragma once

#include <cstdint>

#include "weft/types.h"

namespace weft::collectives::reduce::float16_kernels {

// Whether this CPU has AVX2 and F16C, checked once.
bool have_f16c();

// The F16C kernels; call them only where have_f16c(). Below eight elements they
// hand over to the portable ones.
void reduce_f16c(ReduceOp op, void* dst, const void* a, const void* b, uint64_t count);
void divide_f16c(void* data, uint64_t count, uint64_t divisor);

void reduce_portable(ReduceOp op, void* dst, const void* a, const void* b, uint64_t count);
void divide_portable(void* data, uint64_t count, uint64_t divisor);

}  // namespace weft::collectives::reduce::float16_kernels

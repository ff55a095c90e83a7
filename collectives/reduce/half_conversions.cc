#include "collectives/reduce/half_bits.h"
#include "collectives/reduce/reduce_kernels.h"

namespace weft::collectives::reduce {

float float16_to_float(float16 value) { return half_bits::float16_to_float(value.bits); }

float16 float_to_float16(float value) { return {half_bits::float_to_float16(value)}; }

float bfloat16_to_float(bfloat16 value) { return half_bits::bfloat16_to_float(value.bits); }

bfloat16 float_to_bfloat16(float value) { return {half_bits::float_to_bfloat16(value)}; }

}  // namespace weft::collectives::reduce

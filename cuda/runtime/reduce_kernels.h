// The reduction kernel of the CUDA runtime, callable from host code that never sees a
// CUDA header (the stream travels as void*).
#pragma once

#include "cuda/device_runtime.h"

namespace weft::cuda {

// Queues `task` (see ReduceTask) on `stream`, a cudaStream_t of the current device
// (null: its default stream). The arithmetic is weft's CPU kernels' (core/reduce), bit
// for bit on x86 hosts, NaN payloads included. Throws InvalidArgument for a task the
// CPU kernels refuse too (a bitwise op on a floating dtype, no operands or too many, a
// zero divisor) and Error(kInternal) naming the CUDA call when CUDA fails.
void launch_reduce(const ReduceTask& task, void* stream);

}  // namespace weft::cuda

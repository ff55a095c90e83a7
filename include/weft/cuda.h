// Device (CUDA) tensors.
//
// A Tensor with Device{DeviceType::kCuda, i} is memory of GPU i, from cudaMalloc or
// cudaMallocManaged. send, recv, isend, irecv and every collective accept such
// tensors, with the semantics of the host forms. Every rank passes tensors of the same
// kind (all on devices, or all on the host) to one collective, as NCCL requires;
// weft cannot tell a mixed call from ranks that called different collectives, and
// fails it with DesyncError. How the data moves (CUDA IPC between processes of one
// host, host memory otherwise) is docs/CUDA.md's subject.
//
// Ordering: an operation reads its device inputs after the work queued before the call
// on this thread's current stream (set_current_stream; the device's default stream
// unless set), as NCCL's operations do. A blocking operation returns once its results
// are in device memory. An asynchronous one's Request completes when they are; work
// that reads the results must be queued after wait() or is_completed() said so.
//
// In a build without CUDA (bazel without --config=cuda), or with no driver or device,
// a device tensor is refused with InvalidArgument saying why.
#pragma once

#include <cstdint>
#include <string>

#include "weft/tensor.h"

namespace weft::cuda {

// The number of CUDA devices this process can use; 0 when it can use none, and then
// unavailable_reason() says why (no CUDA support in this build, no driver, no device).
int device_count();
std::string unavailable_reason();

// A device tensor over existing device memory.
inline Tensor device_tensor(void* data, uint64_t count, DType dtype, int device) {
  return Tensor(data, count, dtype, Device{DeviceType::kCuda, device});
}

// The stream (a cudaStream_t; nullptr for the device's default stream) that this
// thread's operations on device tensors are ordered after. It must belong to the
// device of the tensors it is used with.
void set_current_stream(void* stream);
void* current_stream();

// Sets the current stream for a scope, restoring the previous one at its end.
class StreamGuard {
 public:
  explicit StreamGuard(void* stream) : previous_(current_stream()) { set_current_stream(stream); }
  ~StreamGuard() { set_current_stream(previous_); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  void* previous_;
};

}  // namespace weft::cuda

// What the device layer keeps about one collective call between prepare() (in the
// caller's thread) and run() (there, or in the background thread), and the helpers
// that the staging and IPC paths share.
#pragma once

#include <cstdint>

#include "cuda/device_runtime.h"
#include "cuda/device_workspace.h"
#include "runtime/device_interface.h"

namespace weft::cuda {

// The device a call works on: its input's, or its output's when the input is host
// memory or absent.
int call_device(const runtime::DeviceCall& call);

// Recorded on a stream of the caller's (its current stream, unless given) when the
// call was made; the call reads its inputs once the event has completed.
class ReadyEvent {
 public:
  ReadyEvent(DeviceRuntime& runtime, int device);
  ReadyEvent(DeviceRuntime& runtime, Stream caller);
  ~ReadyEvent();
  ReadyEvent(const ReadyEvent&) = delete;
  ReadyEvent& operator=(const ReadyEvent&) = delete;
  // Makes work queued on `stream` from now on wait for the event.
  void order_before(Stream stream) { runtime_.wait_event(stream, event_); }
  void wait() { runtime_.synchronize_event(event_); }

 private:
  DeviceRuntime& runtime_;
  Event event_;
};

struct DeviceCallState {
  DeviceRuntime* runtime = nullptr;
  std::unique_ptr<ReadyEvent> ready;
};

// Copies `bytes` from `src` to `dst` on the layer's stream of `device`, after the work
// queued so far on the caller's current stream there; returns when the copy is done.
void copy_after_current_stream(DeviceWorkspace& workspace, int device, void* dst, const void* src,
                               uint64_t bytes);

inline DeviceCallState& state_of(const runtime::DeviceCall& call) {
  return *static_cast<DeviceCallState*>(call.layer_state.get());
}

inline std::byte* bytes_of(const Tensor& t) { return static_cast<std::byte*>(t.data()); }

// A host tensor like `t` (same count and dtype) over `data`.
inline Tensor host_like(const Tensor& t, void* data) { return Tensor(data, t.count(), t.dtype()); }

}  // namespace weft::cuda

// DeviceRuntime: everything weft asks of a GPU runtime, as one interface.
//
// The device layer (staging, CUDA IPC, the device collectives) is written against this
// interface only. A build with `--config=cuda` provides CUDA's (cuda_device_runtime.cc,
// over the CUDA runtime API and weft's kernels); a build without it provides one that
// refuses every call saying so (no_device_runtime.cc); tests install a fake one whose
// "device memory" is host memory that can be shared between processes
// (fake_device_runtime.h), so the layer's logic runs and is checked on machines without
// a GPU.
//
// Every call that fails throws weft::Error naming the runtime call and its reason.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "weft/collectives.h"
#include "weft/tensor.h"

namespace weft::cuda {

// An exported device allocation: cudaIpcMemHandle_t is 64 opaque bytes.
struct IpcMemHandle {
  std::array<uint8_t, 64> bytes{};
  bool operator==(const IpcMemHandle&) const = default;
};

// A device's identity (CUDA's device UUID): the same in every process that sees the
// device, whatever index CUDA_VISIBLE_DEVICES gives it there.
struct DeviceUuid {
  std::array<uint8_t, 16> bytes{};
  bool operator==(const DeviceUuid&) const = default;
};

// The allocation a device pointer lies in.
struct AllocationRange {
  std::byte* base = nullptr;
  uint64_t size = 0;
};

// A range of device memory exported as a dma-buf, for GPUDirect RDMA by dma-buf
// (transport/ib/gpudirect.h).
struct DmaBufRange {
  int fd = -1;                // a new descriptor, which the caller closes
  std::byte* base = nullptr;  // the range exported: whole host pages
  uint64_t bytes = 0;
};

// A stream or an event of one device; `native` is the runtime's own handle (a
// cudaStream_t, a cudaEvent_t). A null stream is the device's default stream.
struct Stream {
  void* native = nullptr;
  int device = 0;
};
struct Event {
  void* native = nullptr;
  int device = 0;
};

// One reduction kernel: for each element i of [0, count),
//   r = inputs[0][i] op inputs[1][i] op ... (left to right, rounded to the dtype after
//   each step, as the CPU kernels do), then r /= divisor when divisor > 1 (kAvg),
// and r is written to outputs[k][i] for every k. An output may be one of the inputs
// (in place); nothing else may overlap. At most kMaxReduceOperands of each.
inline constexpr int kMaxReduceOperands = 16;
struct ReduceTask {
  ReduceOp op = ReduceOp::kSum;
  DType dtype = DType::kFloat32;
  uint64_t count = 0;
  std::span<const void* const> inputs;
  std::span<void* const> outputs;
  uint64_t divisor = 1;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // "cuda 13.0 (driver 13.0)", "fake (2 devices)", ...
  virtual std::string describe() = 0;

  // The number of devices. Throws Error(kState) with the reason when none can be used
  // (no driver, no device, a build without CUDA).
  virtual int device_count() = 0;
  virtual DeviceUuid device_uuid(int device) = 0;
  // Whether kernels on `device` can read and write `peer`'s memory directly (for
  // reports; weft's own paths between processes use IPC, whatever this says).
  virtual bool can_access_peer(int device, int peer) = 0;

  // Whether [p, p + bytes) is memory of `device` that kernels and copies there can use;
  // an empty string when it is, else why not ("it is host memory", "it is memory of
  // cuda:1").
  virtual std::string check_pointer(const void* p, uint64_t bytes, int device) = 0;

  // IPC: the allocation holding p, exporting it, and opening a peer's export (the
  // returned pointer is the allocation's base in this process) and closing that.
  virtual AllocationRange allocation_of(const void* p, int device) = 0;
  virtual IpcMemHandle export_memory(const void* base, int device) = 0;
  virtual void* open_memory(const IpcMemHandle& handle, int device) = 0;
  virtual void close_memory(void* base, int device) = 0;

  // GPUDirect RDMA by dma-buf: why `device`'s memory cannot be exported as a dma-buf (a
  // driver without the call, a device without support); empty when it can.
  virtual std::string why_no_dma_buf(int device) = 0;
  // [p, p + bytes) of `device`'s memory, widened to whole host pages, as a dma-buf.
  virtual DmaBufRange export_dma_buf(const void* p, uint64_t bytes, int device) = 0;

  virtual void* allocate_device(uint64_t bytes, int device) = 0;
  virtual void free_device(void* p, int device) = 0;
  // Page-locked host memory, which copies to and from devices run from without an
  // intermediate copy.
  virtual void* allocate_pinned(uint64_t bytes) = 0;
  virtual void free_pinned(void* p) = 0;

  virtual Stream create_stream(int device) = 0;
  virtual void destroy_stream(Stream stream) = 0;
  virtual Event create_event(int device) = 0;
  virtual void destroy_event(Event event) = 0;
  // The event completes when the work queued on `stream` before this call has.
  virtual void record(Event event, Stream stream) = 0;
  // Work queued on `stream` after this call waits for `event`.
  virtual void wait_event(Stream stream, Event event) = 0;
  virtual bool event_done(Event event) = 0;
  virtual void synchronize_event(Event event) = 0;
  virtual void synchronize_stream(Stream stream) = 0;

  // Queued on `stream`: a copy in any direction (host, this device, another device,
  // an opened peer allocation), and a reduction kernel.
  virtual void copy(void* dst, const void* src, uint64_t bytes, Stream stream) = 0;
  virtual void reduce(const ReduceTask& task, Stream stream) = 0;
};

// The process's runtime: CUDA's in a build with --config=cuda, else one that refuses
// every call. Tests may replace it (nullptr restores the built-in one); nothing may be
// using the previous one then.
DeviceRuntime& device_runtime();
void set_device_runtime(DeviceRuntime* runtime);

// The built-in runtime, which device_runtime() returns unless a test replaced it.
DeviceRuntime& built_in_device_runtime();

}  // namespace weft::cuda

// FakeDeviceRuntime: a DeviceRuntime without a GPU, so that the device layer's logic
// (staging, CUDA IPC collectives, the handle cache, the multi-GPU forms, stream order)
// runs and is checked on any machine.
//
// "Device memory" is shared memory (a memfd per allocation) tagged with its device;
// exporting it gives a handle naming the owner's pid and descriptor, which another
// process opens through /proc, as CUDA IPC maps a peer's allocation. Unlike CUDA, a
// process may open its own exports (tests of the cache rely on it). Every stream is a
// thread running its queue in order, each operation after an optional delay, so work
// really is asynchronous and a missing wait shows up as wrong data. Reductions run the
// CPU kernels (core/reduce), whose results the GPU kernels match bit for bit.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/device_runtime.h"

namespace weft::testing {

class FakeDeviceRuntime : public cuda::DeviceRuntime {
 public:
  explicit FakeDeviceRuntime(int devices, std::chrono::microseconds delay = {});
  ~FakeDeviceRuntime() override;

  std::string describe() override;
  int device_count() override { return devices_; }
  // Fake device d is the same device in every process: "fake" and d.
  cuda::DeviceUuid device_uuid(int device) override;
  // Fake devices live in one host memory: each can reach every other.
  bool can_access_peer(int device, int peer) override {
    return device >= 0 && device < devices_ && peer >= 0 && peer < devices_;
  }
  std::string check_pointer(const void* p, uint64_t bytes, int device) override;
  cuda::AllocationRange allocation_of(const void* p, int device) override;
  cuda::IpcMemHandle export_memory(const void* base, int device) override;
  void* open_memory(const cuda::IpcMemHandle& handle, int device) override;
  void close_memory(void* base, int device) override;
  // Its "device memory" is host memory (a memfd), no dma-buf: GPUDirect RDMA by dma-buf is
  // never chosen over it, and device buffers are staged (transport/ib/gpudirect.h),
  // unless offer_dma_buf(true): then an allocation of this process exports as its memfd
  // (whole pages, from its base), which the soft verbs device's ibv_reg_dmabuf_mr
  // resolves to the allocation's own memory.
  std::string why_no_dma_buf(int device) override;
  cuda::DmaBufRange export_dma_buf(const void* p, uint64_t bytes, int device) override;
  void* allocate_device(uint64_t bytes, int device) override;
  void free_device(void* p, int device) override;
  void* allocate_pinned(uint64_t bytes) override;
  void free_pinned(void* p) override;
  cuda::Stream create_stream(int device) override;
  void destroy_stream(cuda::Stream stream) override;
  cuda::Event create_event(int device) override;
  void destroy_event(cuda::Event event) override;
  void record(cuda::Event event, cuda::Stream stream) override;
  void wait_event(cuda::Stream stream, cuda::Event event) override;
  bool event_done(cuda::Event event) override;
  void synchronize_event(cuda::Event event) override;
  void synchronize_stream(cuda::Stream stream) override;
  void copy(void* dst, const void* src, uint64_t bytes, cuda::Stream stream) override;
  void reduce(const cuda::ReduceTask& task, cuda::Stream stream) override;

  // Set before the first verbs link is made (the transport asks once per process).
  void offer_dma_buf(bool offer) { dma_buf_ = offer; }
  uint64_t dma_buf_exports() const { return dma_buf_exports_; }

  // Makes the next `n` calls of open_memory fail, as CUDA's does for a range that a
  // stale mapping still holds.
  void fail_next_opens(int n) { failing_opens_ = n; }

  // Queues `work` on `stream`, as a kernel of the program's own would be.
  void enqueue(cuda::Stream stream, std::function<void()> work);

  // What the layer did, for tests that check which path a call took.
  uint64_t bytes_through_host() const { return bytes_through_host_; }  // copies to/from pinned
  uint64_t reductions() const { return reductions_; }
  int open_mappings();
  int pinned_allocations();

  class Queue;
  struct EventState;

 private:
  struct Region {
    std::byte* base;
    uint64_t size;
    int device;
    int fd;       // -1 for an opened peer allocation
    uint64_t id;  // the owner's allocation number
  };
  const Region* find(const void* p);
  Queue& queue_of(cuda::Stream stream);
  bool is_pinned(const void* p, uint64_t bytes);

  const int devices_;
  const std::chrono::microseconds delay_;
  std::mutex mutex_;
  std::vector<Region> allocations_, mappings_;
  std::map<std::byte*, uint64_t> pinned_;
  std::map<int, std::unique_ptr<Queue>> default_queues_;
  uint64_t next_id_ = 1;
  std::atomic<uint64_t> bytes_through_host_{0};
  std::atomic<uint64_t> reductions_{0};
  std::atomic<int> failing_opens_{0};
  std::atomic<bool> dma_buf_{false};
  std::atomic<uint64_t> dma_buf_exports_{0};
};

// Installs a fake runtime with `devices` devices for the rest of the process (the
// layer keeps per-runtime state for the process's lifetime, so it is never freed).
FakeDeviceRuntime& install_fake_device_runtime(int devices, std::chrono::microseconds delay = {});

}  // namespace weft::testing

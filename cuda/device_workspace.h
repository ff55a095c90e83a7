// DeviceWorkspace: what the device layer keeps per process between calls: one stream
// per device for its own copies and kernels, page-locked staging memory, and the peer
// allocations opened through CUDA IPC.
//
// Registering host memory with the driver costs far more than a small transfer, so
// staging buffers are kept and reused: a lease takes the smallest free buffer that is
// large enough, or allocates one; returning it keeps it for the next call.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "cuda/device_runtime.h"
#include "cuda/ipc_cache.h"

namespace weft::cuda {

class DeviceWorkspace {
 public:
  class PinnedLease {
   public:
    PinnedLease() = default;
    PinnedLease(DeviceWorkspace* owner, std::byte* data, uint64_t bytes)
        : owner_(owner), data_(data), bytes_(bytes) {}
    PinnedLease(PinnedLease&& other) noexcept { *this = std::move(other); }
    PinnedLease& operator=(PinnedLease&& other) noexcept;
    ~PinnedLease() { release(); }
    std::byte* data() const { return data_; }
    uint64_t bytes() const { return bytes_; }

   private:
    void release();
    DeviceWorkspace* owner_ = nullptr;
    std::byte* data_ = nullptr;
    uint64_t bytes_ = 0;
  };

  // The workspace over `runtime`, created on first use; one per runtime, so that a
  // test's runtime never sees another's buffers.
  static DeviceWorkspace& of(DeviceRuntime& runtime);

  explicit DeviceWorkspace(DeviceRuntime& runtime);
  ~DeviceWorkspace();
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  DeviceWorkspace& operator=(const DeviceWorkspace&) = delete;

  DeviceRuntime& runtime() const { return runtime_; }
  // The layer's stream on `device`. Calls on different threads share it: the work each
  // queues is ordered after the others', which is correct, only less concurrent.
  Stream stream(int device);
  PinnedLease pinned(uint64_t bytes);
  // Holds WEFT_CUDA_IPC_CACHE (256) mappings.
  IpcCache& ipc_cache() { return ipc_cache_; }
  // Free page-locked buffers kept for reuse, for tests.
  size_t idle_pinned_buffers();

 private:
  DeviceRuntime& runtime_;
  std::mutex mutex_;
  std::map<int, Stream> streams_;
  std::multimap<uint64_t, std::byte*> idle_;  // by size
  std::vector<std::pair<std::byte*, uint64_t>> all_;
  IpcCache ipc_cache_;
};

}  // namespace weft::cuda

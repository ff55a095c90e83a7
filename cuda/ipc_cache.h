// IpcCache: the peers' device allocations this process has opened through CUDA IPC.
//
// Opening a handle maps the peer's allocation into this process, which costs far more
// than a collective on a small buffer, and CUDA refuses to open one handle twice in a
// process; so each handle is opened once and kept. The cache holds at most `capacity`
// mappings, closing the least recently used beyond that. A mapping in use by a call
// stays open until that call drops it, even when it is evicted meanwhile.
//
// A peer that frees an allocation and allocates another gets a new handle, so a stale
// mapping is never used for new memory; it only stays mapped (and keeps the peer's old
// memory allocated) until it is evicted. When opening fails, the cache lets go of all
// its mappings and tries once more, since a stale mapping of the same range can be
// what CUDA refuses the new one for.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include "cuda/device_runtime.h"

namespace weft::cuda {

class IpcCache {
 public:
  // A peer allocation opened in this process: `base` is where it starts here.
  struct Mapping {
    std::byte* base = nullptr;
  };

  IpcCache(DeviceRuntime& runtime, size_t capacity) : runtime_(runtime), capacity_(capacity) {}
  ~IpcCache() = default;
  IpcCache(const IpcCache&) = delete;
  IpcCache& operator=(const IpcCache&) = delete;

  // The mapping of `handle` on `device`, opened now unless it is cached.
  std::shared_ptr<const Mapping> open(const IpcMemHandle& handle, int device);

  size_t size();
  uint64_t opens() const { return opens_; }  // handles actually opened, for tests

 private:
  struct Entry {
    IpcMemHandle handle;
    int device;
    std::shared_ptr<const Mapping> mapping;
  };

  DeviceRuntime& runtime_;
  const size_t capacity_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  uint64_t opens_ = 0;
};

}  // namespace weft::cuda

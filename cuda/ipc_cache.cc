#include "cuda/ipc_cache.h"

namespace weft::cuda {

std::shared_ptr<const IpcCache::Mapping> IpcCache::open(const IpcMemHandle& handle, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->device == device && it->handle == handle) {
      entries_.splice(entries_.begin(), entries_, it);
      return it->mapping;
    }
  }
  std::byte* base = nullptr;
  try {
    base = static_cast<std::byte*>(runtime_.open_memory(handle, device));
  } catch (const std::exception&) {
    // A peer that freed an allocation may have been given its address range again; CUDA
    // then refuses to map the new one while the stale mapping is open ("already
    // mapped"). Letting go of every cached mapping (those in use close when their call
    // ends) and trying once more clears that.
    entries_.clear();
    base = static_cast<std::byte*>(runtime_.open_memory(handle, device));
  }
  ++opens_;
  // The mapping closes when its last user (the cache or a call) lets go of it.
  DeviceRuntime* runtime = &runtime_;
  std::shared_ptr<const Mapping> mapping(new Mapping{base}, [runtime, device](const Mapping* m) {
    try {
      runtime->close_memory(m->base, device);
    } catch (...) {
      // Closing fails only when the driver is going away, which unmaps it anyway.
    }
    delete m;
  });
  entries_.push_front(Entry{handle, device, mapping});
  while (entries_.size() > capacity_) entries_.pop_back();
  return mapping;
}

size_t IpcCache::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace weft::cuda

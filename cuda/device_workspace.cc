#include "cuda/device_workspace.h"

#include <memory>
#include <utility>

#include "base/env.h"

namespace weft::cuda {

DeviceWorkspace::PinnedLease& DeviceWorkspace::PinnedLease::operator=(
    PinnedLease&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceWorkspace::PinnedLease::release() {
  if (owner_ == nullptr) return;
  std::lock_guard<std::mutex> lock(owner_->mutex_);
  owner_->idle_.emplace(bytes_, data_);
  owner_ = nullptr;
}

DeviceWorkspace& DeviceWorkspace::of(DeviceRuntime& runtime) {
  static std::mutex mutex;
  static std::map<DeviceRuntime*, std::unique_ptr<DeviceWorkspace>> workspaces;
  std::lock_guard<std::mutex> lock(mutex);
  auto& workspace = workspaces[&runtime];
  if (!workspace) workspace = std::make_unique<DeviceWorkspace>(runtime);
  return *workspace;
}

DeviceWorkspace::DeviceWorkspace(DeviceRuntime& runtime)
    : runtime_(runtime),
      ipc_cache_(runtime,
                 static_cast<size_t>(base::env::get_int("WEFT_CUDA_IPC_CACHE", 256, 1, 1 << 20))) {}

DeviceWorkspace::~DeviceWorkspace() {
  // At exit the driver may already be shutting down; what it refuses is gone anyway.
  try {
    for (auto& [device, stream] : streams_) runtime_.destroy_stream(stream);
    for (auto& [data, size] : all_) runtime_.free_pinned(data);
  } catch (...) {
  }
}

Stream DeviceWorkspace::stream(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(device);
  if (it == streams_.end()) it = streams_.emplace(device, runtime_.create_stream(device)).first;
  return it->second;
}

DeviceWorkspace::PinnedLease DeviceWorkspace::pinned(uint64_t bytes) {
  if (bytes == 0) bytes = 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = idle_.lower_bound(bytes);
    if (it != idle_.end()) {
      std::byte* data = it->second;
      uint64_t size = it->first;
      idle_.erase(it);
      return PinnedLease(this, data, size);
    }
  }
  auto* data = static_cast<std::byte*>(runtime_.allocate_pinned(bytes));
  std::lock_guard<std::mutex> lock(mutex_);
  all_.emplace_back(data, bytes);
  return PinnedLease(this, data, bytes);
}

size_t DeviceWorkspace::idle_pinned_buffers() {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

}  // namespace weft::cuda

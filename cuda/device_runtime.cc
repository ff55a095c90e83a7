#include "cuda/device_runtime.h"

#include <atomic>

namespace weft::cuda {
namespace {

std::atomic<DeviceRuntime*> g_replacement{nullptr};

}  // namespace

DeviceRuntime& device_runtime() {
  DeviceRuntime* replacement = g_replacement.load(std::memory_order_acquire);
  return replacement ? *replacement : built_in_device_runtime();
}

void set_device_runtime(DeviceRuntime* runtime) {
  g_replacement.store(runtime, std::memory_order_release);
}

}  // namespace weft::cuda

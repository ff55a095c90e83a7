#include "transport/ib/device_memory.h"

#include <atomic>

namespace weft::transport::ib {
namespace {

std::atomic<DeviceMemory*> g_installed{nullptr};

}  // namespace

void install_device_memory(DeviceMemory* memory) {
  g_installed.store(memory, std::memory_order_release);
}

DeviceMemory* installed_device_memory() { return g_installed.load(std::memory_order_acquire); }

}  // namespace weft::transport::ib

#include "core/api/device_layer.h"

#include <atomic>

#include "weft/error.h"

namespace weft::core {
namespace {

std::atomic<DeviceLayer*> g_layer{nullptr};

}  // namespace

void register_device_layer(DeviceLayer* layer) { g_layer.store(layer, std::memory_order_release); }

DeviceLayer* find_device_layer() { return g_layer.load(std::memory_order_acquire); }

DeviceLayer& device_layer() {
  DeviceLayer* layer = find_device_layer();
  if (layer == nullptr) {
    throw Error(ErrorCode::kInternal, "a device tensor passed the checks without a device layer");
  }
  return *layer;
}

std::string device_name(Device device) {
  return (device.type == DeviceType::kCuda ? "cuda:" : "cpu:") + std::to_string(device.index);
}

}  // namespace weft::core

#include "runtime/device_interface.h"

#include <atomic>

#include "collectives/algorithm_table.h"
#include "runtime/api/argument_checks.h"
#include "weft/error.h"

namespace weft::runtime {
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

DeviceCall make_step(const DeviceCall& outer, collectives::CollectiveKind kind, DType dtype) {
  DeviceCall step;
  step.op = outer.op;
  step.spec.kind = kind;
  step.spec.dtype = dtype;
  step.spec.size = outer.spec.size;
  step.spec.rank = outer.spec.rank;
  step.spec.segment = collectives::segment_elements(dtype);
  step.spec.shared_arena = outer.spec.shared_arena;
  step.group_on_one_host = outer.group_on_one_host;
  return step;
}

std::string describe_caller(const char* op, const Group& group) {
  Checker check(op, group);  // refuses a process outside the group
  return std::string(op) + " (" + group_clause(*check.group()) + ")";
}

}  // namespace weft::runtime

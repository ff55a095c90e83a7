#include "tests/cuda/fake_device_buffers.h"

namespace weft::testing {
namespace {

FakeDeviceRuntime* g_fake = nullptr;

std::byte* allocate_on_device_0(uint64_t bytes) {
  return static_cast<std::byte*>(g_fake->allocate_device(bytes, 0));
}
void release_on_device_0(std::byte* data) { g_fake->free_device(data, 0); }

const bench::BufferMemory kDevice0{allocate_on_device_0, release_on_device_0,
                                   Device{DeviceType::kCuda, 0}};

}  // namespace

FakeDeviceRuntime& use_fake_devices(int devices) {
  g_fake = &install_fake_device_runtime(devices, std::chrono::microseconds(20));
  bench::place_buffers(&kDevice0);
  return *g_fake;
}

FakeDeviceTensor::FakeDeviceTensor(FakeDeviceRuntime& fake, uint64_t count, DType dtype, int device)
    : fake_(fake),
      tensor_(fake.allocate_device(count * dtype_size(dtype), device), count, dtype,
              Device{DeviceType::kCuda, device}) {}

}  // namespace weft::testing

// Test set-up shared by the device-layer tests: the fake device runtime installed, and
// the test data Buffers (tools/bench/typed_values.h) placed in its "device memory", so
// that the collective checks written for host tensors run on device tensors.
#pragma once

#include <string>

#include "tests/cuda/fake_device_runtime.h"
#include "tools/bench/typed_values.h"
#include "weft/error.h"

namespace weft::testing {

// Installs a fake runtime of `devices` devices whose streams delay each operation a
// little (so missing waits show), and places Buffers on device 0.
FakeDeviceRuntime& use_fake_devices(int devices = 2);

// A device tensor of `count` elements of `dtype` in the fake's memory of `device`,
// freed at the end of the scope.
class FakeDeviceTensor {
 public:
  FakeDeviceTensor(FakeDeviceRuntime& fake, uint64_t count, DType dtype, int device);
  ~FakeDeviceTensor() { fake_.free_device(tensor_.data(), tensor_.device().index); }
  FakeDeviceTensor(const FakeDeviceTensor&) = delete;
  FakeDeviceTensor& operator=(const FakeDeviceTensor&) = delete;
  const Tensor& tensor() const { return tensor_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(tensor_.data());
  }

 private:
  FakeDeviceRuntime& fake_;
  Tensor tensor_;
};

// The message of the InvalidArgument that `call` throws; "no error" when it throws none.
template <typename Call>
std::string refusal_of(const Call& call) {
  try {
    call();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace weft::testing

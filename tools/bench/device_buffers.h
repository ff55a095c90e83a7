// Device buffers for `weft-bench -d cuda`: each benchmark buffer gets a twin in device
// memory. The timed calls run on the twins; a checked call fills the host buffer,
// uploads it, runs on the twins and downloads the result to check it.
//
// And the yardstick where NCCL cannot run (it refuses two ranks on one GPU): the
// device's memory bandwidth, measured in the same run as a device-to-device copy.
#pragma once

#include <cstdint>

#include "tools/bench/typed_values.h"
#include "weft/tensor.h"

namespace weft::bench {

class DeviceTwin {
 public:
  DeviceTwin(const Buffer& host, int device);
  ~DeviceTwin();
  DeviceTwin(const DeviceTwin&) = delete;
  DeviceTwin& operator=(const DeviceTwin&) = delete;

  Tensor tensor(uint64_t offset = 0, uint64_t count = ~uint64_t{0}) const;
  void upload(const Buffer& host);
  void download(Buffer& host);

 private:
  Tensor whole_;
  uint64_t bytes_;
};

// The device this rank benchmarks on: LOCAL_RANK (else the rank) modulo the devices it
// sees. Throws with the reason when it sees none.
int bench_device();

// Bytes read plus bytes written per second by cudaMemcpy from device memory to device
// memory of `bytes`, the best of several copies.
double device_copy_bandwidth(int device, uint64_t bytes);

}  // namespace weft::bench

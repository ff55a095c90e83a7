#include "tools/bench/device_buffers.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "cuda/device_runtime.h"
#include "weft/cuda.h"
#include "weft/error.h"
#include "weft/process_group.h"

namespace weft::bench {
namespace {

cuda::DeviceRuntime& runtime() { return cuda::device_runtime(); }

}  // namespace

DeviceTwin::DeviceTwin(const Buffer& host, int device) {
  Tensor h = host.tensor();
  bytes_ = h.bytes() + 1;  // as the host buffer, one spare byte so that empty has an address
  void* data = runtime().allocate_device(bytes_, device);
  whole_ = Tensor(data, h.count(), h.dtype(), Device{DeviceType::kCuda, device});
}

DeviceTwin::~DeviceTwin() { runtime().free_device(whole_.data(), whole_.device().index); }

Tensor DeviceTwin::tensor(uint64_t offset, uint64_t count) const {
  const uint64_t n = count == ~uint64_t{0} ? whole_.count() - offset : count;
  return Tensor(static_cast<std::byte*>(whole_.data()) + offset * dtype_size(whole_.dtype()), n,
                whole_.dtype(), whole_.device());
}

void DeviceTwin::upload(const Buffer& host) {
  cuda::Stream stream{nullptr, whole_.device().index};
  runtime().copy(whole_.data(), host.tensor().data(), whole_.bytes(), stream);
  runtime().synchronize_stream(stream);
}

void DeviceTwin::download(Buffer& host) {
  cuda::Stream stream{nullptr, whole_.device().index};
  runtime().copy(host.tensor().data(), whole_.data(), whole_.bytes(), stream);
  runtime().synchronize_stream(stream);
}

int bench_device() {
  const int devices = runtime().device_count();  // throws with the reason when none
  if (devices <= 0) throw Error(ErrorCode::kState, "no CUDA device is present");
  const char* local = std::getenv("LOCAL_RANK");
  const int rank = local != nullptr ? std::atoi(local) : get_rank();
  return rank % devices;
}

double device_copy_bandwidth(int device, uint64_t bytes) {
  void* a = runtime().allocate_device(bytes, device);
  void* b = runtime().allocate_device(bytes, device);
  cuda::Stream stream{nullptr, device};
  double best = 0;
  for (int i = 0; i < 6; ++i) {
    runtime().synchronize_stream(stream);
    auto start = std::chrono::steady_clock::now();
    runtime().copy(b, a, bytes, stream);
    runtime().synchronize_stream(stream);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i > 0) best = std::max(best, 2.0 * bytes / seconds);  // the first one warms up
  }
  runtime().free_device(a, device);
  runtime().free_device(b, device);
  return best;
}

}  // namespace weft::bench

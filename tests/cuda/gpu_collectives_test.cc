// The device layer on a real GPU (the runtime weft was built with): two processes
// sharing device 0, through CUDA IPC and staged through host memory, every op and
// dtype through the kernels, and the multi-GPU all_reduce. Skips, saying why, where no device can
// be used; run by tools/gpu_check.sh on a machine with one.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/device_runtime.h"
#include "tests/harness/multiprocess.h"
#include "tools/bench/typed_values.h"
#include "weft/cuda.h"
#include "weft/multigpu.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

#define SKIP_WITHOUT_A_GPU()                                          \
  if (cuda::device_count() == 0) {                                    \
    GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason(); \
  }

// A device buffer of floats with host copies in and out.
class DeviceFloats {
 public:
  DeviceFloats(uint64_t count, int device = 0)
      : count_(count),
        device_(device),
        data_(cuda::device_runtime().allocate_device(count * sizeof(float), device)) {}
  ~DeviceFloats() { cuda::device_runtime().free_device(data_, device_); }
  Tensor tensor() const { return cuda::device_tensor(data_, count_, DType::kFloat32, device_); }
  void put(const std::vector<float>& v) { move(data_, v.data()); }
  std::vector<float> get() {
    std::vector<float> v(count_);
    move(v.data(), data_);
    return v;
  }

 private:
  void move(void* to, const void* from) {
    cuda::Stream stream{nullptr, device_};
    cuda::device_runtime().copy(to, from, count_ * sizeof(float), stream);
    cuda::device_runtime().synchronize_stream(stream);
  }
  uint64_t count_;
  int device_;
  void* data_;
};

// all_reduce, reduce, broadcast, all_gather and reduce_scatter on cudaMalloc memory.
void check_device_collectives(int rank, int n) {
  const uint64_t count = 3 * 1000 * 1000 + 7;  // not a multiple of the slices
  DeviceFloats a(count), b(count * n);
  std::vector<float> v(count);
  for (uint64_t i = 0; i < count; ++i) v[i] = static_cast<float>(rank + i % 11);
  a.put(v);
  all_reduce(a.tensor());
  std::vector<float> got = a.get();
  const float ranks = n * (n - 1) / 2.0f;
  for (uint64_t i = 0; i < count; i += 999) ASSERT_EQ(got[i], ranks + n * (i % 11)) << i;
  a.put(v);
  reduce(a.tensor(), n - 1, ReduceOp::kMax);
  got = a.get();
  EXPECT_EQ(got[count - 1], rank == n - 1 ? (n - 1) + (count - 1) % 11 : v[count - 1]);
  a.put(v);
  broadcast(a.tensor(), 0);
  EXPECT_EQ(a.get()[12], 1.0f);
  a.put(v);
  all_gather(a.tensor(), b.tensor());
  got = b.get();
  for (int r = 0; r < n; ++r) EXPECT_EQ(got[r * count + 5], static_cast<float>(r + 5));
  b.put(std::vector<float>(count * n, 1.0f + rank));
  reduce_scatter(b.tensor(), a.tensor(), ReduceOp::kSum);
  EXPECT_EQ(a.get()[77], n + ranks);
}

TEST(Gpu, TwoProcessesOnOneDeviceThroughCudaIpc) {
  SKIP_WITHOUT_A_GPU();
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    check_device_collectives(rank, 2);
    destroy_process_group();
  }));
}

TEST(Gpu, TwoProcessesOnOneDeviceStagedThroughTheHost) {
  SKIP_WITHOUT_A_GPU();
  RunOptions options;
  options.env["WEFT_CUDA_IPC"] = "0";
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        init_process_group();
        check_device_collectives(rank, 2);
        destroy_process_group();
      },
      options));
}

TEST(Gpu, PointToPointBetweenDevices) {
  SKIP_WITHOUT_A_GPU();
  expect_all_succeeded(run_ranks(2, [](int rank) {
    init_process_group();
    DeviceFloats d(1 << 20);
    if (rank == 0) {
      d.put(std::vector<float>(1 << 20, 3.5f));
      send(d.tensor(), 1);
    } else {
      Request r = irecv(d.tensor(), 0);
      r.wait();
      EXPECT_EQ(d.get()[(1 << 20) - 1], 3.5f);
    }
    destroy_process_group();
  }));
}

TEST(Gpu, EveryOpAndDtypeThroughTheKernels) {
  SKIP_WITHOUT_A_GPU();
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    // Every op and dtype through the reduction kernel, on cudaMalloc memory: compare
    // the device all_reduce with the host one on the same data.
    for (int d = 0; d < kNumDTypes; ++d) {
      const DType dtype = static_cast<DType>(d);
      for (int o = 0; o < kNumReduceOps; ++o) {
        const ReduceOp op = static_cast<ReduceOp>(o);
        if ((op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor) &&
            !bench::is_integer(dtype)) {
          continue;
        }
        const uint64_t count = 4099;
        bench::Buffer host(dtype, count), back(dtype, count);
        for (uint64_t i = 0; i < count; ++i) host.set(i, bench::input_value(dtype, op, rank, i));
        const uint64_t bytes = count * dtype_size(dtype);
        void* dev = cuda::device_runtime().allocate_device(bytes, 0);
        cuda::Stream stream{nullptr, 0};
        cuda::device_runtime().copy(dev, host.tensor().data(), bytes, stream);
        cuda::device_runtime().synchronize_stream(stream);
        all_reduce(cuda::device_tensor(dev, count, dtype, 0), op);
        all_reduce(host.tensor(), op);
        cuda::device_runtime().copy(back.tensor().data(), dev, bytes, stream);
        cuda::device_runtime().synchronize_stream(stream);
        cuda::device_runtime().free_device(dev, 0);
        for (uint64_t i = 0; i < count; ++i) {
          ASSERT_EQ(back.get(i), host.get(i))
              << dtype_name(dtype) << " " << reduce_op_name(op) << " element " << i;
        }
      }
    }
    destroy_process_group();
  }));
}

TEST(Gpu, AllReduceMultigpuOverEveryLocalDevice) {
  SKIP_WITHOUT_A_GPU();
  expect_all_succeeded(run_ranks(1, [](int) {
    init_process_group();
    const int devices = cuda::device_count();
    std::vector<std::unique_ptr<DeviceFloats>> owned;
    std::vector<Tensor> tensors;
    for (int g = 0; g < devices; ++g) {
      owned.push_back(std::make_unique<DeviceFloats>(1 << 20, g));
      owned.back()->put(std::vector<float>(1 << 20, 1.0f + g));
      tensors.push_back(owned.back()->tensor());
    }
    all_reduce_multigpu(tensors);
    const float sum = devices * (devices + 1) / 2.0f;
    for (auto& t : owned) EXPECT_EQ(t->get()[12345], sum);
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

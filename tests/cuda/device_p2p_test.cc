// Point-to-point messages from and into device tensors (staged through host memory),
// over the fake device runtime.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "weft/cuda.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;

void fill(const FakeDeviceTensor& t, int32_t first) {
  for (uint64_t i = 0; i < t.tensor().count(); ++i) t.as<int32_t>()[i] = first + i;
}

TEST(DeviceP2P, BlockingBetweenDeviceAndHostTensorsEitherWay) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    // Small (eager) and large (rendezvous) messages.
    for (uint64_t count : {3u, 200000u}) {
      FakeDeviceTensor d(fake, count, DType::kInt32, 0);
      std::vector<int32_t> h(count);
      if (rank == 0) {
        fill(d, 100);
        send(d.tensor(), 1, 1);  // device to device
        send(d.tensor(), 1, 2);  // device to host
        recv(view(h), 1, 3);     // host from device
        EXPECT_EQ(h[count - 1], 7 + static_cast<int32_t>(count) - 1);
      } else {
        EXPECT_EQ(recv(d.tensor(), 0, 1), 0);
        EXPECT_EQ(d.as<int32_t>()[count - 1], 100 + static_cast<int32_t>(count) - 1);
        recv(view(h), 0, 2);
        EXPECT_EQ(h[0], 100);
        fill(d, 7);
        send(d.tensor(), 0, 3);
      }
    }
    destroy_process_group();
  }));
}

TEST(DeviceP2P, AShorterMessageLeavesTheRestOfTheDeviceBufferAlone) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    FakeDeviceTensor d(fake, 10, DType::kInt32, 0);
    if (rank == 0) {
      fill(d, 1);
      send(Tensor(d.tensor().data(), 4, DType::kInt32, d.tensor().device()), 1);
    } else {
      fill(d, -100);
      Request r = irecv(d.tensor(), 0);
      r.wait();
      EXPECT_EQ(r.bytes(), 16u);
      EXPECT_EQ(d.as<int32_t>()[3], 4);
      EXPECT_EQ(d.as<int32_t>()[4], -96);  // untouched
    }
    destroy_process_group();
  }));
}

TEST(DeviceP2P, AsynchronousFormsCompleteOnceTheDataIsOnTheDevice) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    FakeDeviceTensor d(fake, 50000, DType::kInt32, 0);
    if (rank == 0) {
      fill(d, 5);
      Request s = isend(d.tensor(), 1, 0);
      // The message was copied at the call: the buffer may change at once.
      fill(d, -1);
      s.wait();
      Request ss = issend(d.tensor(), 1, 1);
      ss.wait();
    } else {
      std::this_thread::sleep_for(20ms);
      Request r = irecv(d.tensor(), 0, 0);
      while (!r.is_completed()) std::this_thread::yield();
      EXPECT_EQ(d.as<int32_t>()[49999], 5 + 49999);
      Request r2 = irecv(d.tensor(), kAnySource, 1);
      r2.wait();
      EXPECT_EQ(r2.source(), 0);
      EXPECT_EQ(d.as<int32_t>()[0], -1);
    }
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

// Every collective on device tensors, over the fake device runtime: through CUDA IPC
// when the ranks share a host (the shared-memory variant), staged through host memory
// when they do not (the TCP variant), and the mixed variant's fallback when only some
// pairs share memory. Results are checked against the serial reference, as the host
// collectives' are.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/collectives/collective_checks.h"
#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "weft/cuda.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;

// Whether this variant's ranks all share memory, so that CUDA IPC serves them.
bool expect_ipc() {
  const char* transports = std::getenv("WEFT_TRANSPORTS");
  return transports != nullptr && std::string(transports) == "shm";
}

RunOptions small_chunks() {
  RunOptions options;
  options.timeout = std::chrono::seconds(150);
  // 1 KiB chunks: the staging pipeline runs many chunks through both host buffers.
  options.env["WEFT_CUDA_STAGING_CHUNK"] = "4096";
  return options;
}

TEST(DeviceCollectives, EveryCollectiveOnDeviceTensors) {
  expect_all_succeeded(run_ranks(
      3,
      [](int) {
        use_fake_devices();
        init_process_group();
        check_all_collectives(
            Group(), {.dtypes = {DType::kFloat32, DType::kInt64, DType::kFloat16, DType::kBFloat16},
                      .ops = {},
                      .counts = {0, 1, 7, 1023, 5000},
                      .variable_forms = true});
        destroy_process_group();
      },
      small_chunks()));
}

TEST(DeviceCollectives, SubGroupsAndTwoRanks) {
  expect_all_succeeded(run_ranks(
      4,
      [](int rank) {
        use_fake_devices();
        init_process_group();
        Group low = new_group({0, 1});
        Group high = new_group({3, 2});
        const Group& pair = rank < 2 ? low : high;
        check_all_collectives(pair, {.dtypes = {DType::kUInt8, DType::kFloat64},
                                     .ops = {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kAvg},
                                     .counts = {3, 4096},
                                     .variable_forms = false});
        destroy_process_group();
      },
      small_chunks()));
}

// The IPC path moves nothing through host memory; the staged path moves everything.
TEST(DeviceCollectives, IpcOnOneHostStagingOtherwise) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    FakeDeviceTensor t(fake, 100000, DType::kFloat32, 0);
    for (int i = 0; i < 100000; ++i) t.as<float>()[i] = static_cast<float>(rank + i % 7);
    const uint64_t before = fake.bytes_through_host();
    all_reduce(t.tensor());
    for (int i = 0; i < 100000; i += 997) EXPECT_EQ(t.as<float>()[i], 1 + 2 * (i % 7));
    if (expect_ipc()) {
      EXPECT_EQ(fake.bytes_through_host(), before);
    } else {
      EXPECT_GE(fake.bytes_through_host() - before, 2 * t.tensor().bytes());
    }
    destroy_process_group();
  }));
}

// Over CUDA IPC, ranks whose buffers are on one device leave the whole call to one
// of them (the root, else rank 0); ranks on different devices each do their share.
TEST(DeviceCollectives, OneDeviceOneWorkerSeveralDevicesEachTheirShare) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(2);
    init_process_group();
    const uint64_t count = 10000;
    for (bool one_device : {true, false}) {
      const int device = one_device ? 0 : rank;
      FakeDeviceTensor t(fake, count, DType::kFloat32, device);
      FakeDeviceTensor gathered(fake, 2 * count, DType::kFloat32, device);
      auto fill = [&] {
        for (uint64_t i = 0; i < count; ++i) t.as<float>()[i] = static_cast<float>(rank + i % 5);
      };
      fill();
      uint64_t before = fake.reductions();
      all_reduce(t.tensor());
      const uint64_t all_reduce_kernels = fake.reductions() - before;
      for (uint64_t i = 0; i < count; i += 333) EXPECT_EQ(t.as<float>()[i], 1 + 2 * (i % 5)) << i;
      fill();
      before = fake.reductions();
      reduce(t.tensor(), 1, ReduceOp::kMax);
      const uint64_t reduce_kernels = fake.reductions() - before;
      if (rank == 1) {
        EXPECT_EQ(t.as<float>()[7], 1 + 7 % 5);
      }
      fill();
      all_gather(t.tensor(), gathered.tensor());
      EXPECT_EQ(gathered.as<float>()[3], 3.0f);
      EXPECT_EQ(gathered.as<float>()[count + 3], 4.0f);
      for (uint64_t i = 0; i < 2 * count; ++i) gathered.as<float>()[i] = 1.0f + rank;
      FakeDeviceTensor block(fake, count, DType::kFloat32, device);
      reduce_scatter(gathered.tensor(), block.tensor(), ReduceOp::kSum);
      EXPECT_EQ(block.as<float>()[count - 1], 3.0f);
      fill();
      broadcast(t.tensor(), 1);
      EXPECT_EQ(t.as<float>()[2], 3.0f);
      if (!expect_ipc()) continue;  // staged: every rank reduces its chunks
      if (one_device) {
        EXPECT_EQ(all_reduce_kernels, rank == 0 ? 1u : 0u) << "rank 0 works for both";
        EXPECT_EQ(reduce_kernels, rank == 1 ? 1u : 0u) << "the root works for both";
      } else {
        EXPECT_EQ(all_reduce_kernels, 1u) << "each device reduces its slice";
        EXPECT_EQ(reduce_kernels, 1u);
      }
    }
    destroy_process_group();
  }));
}

TEST(DeviceCollectives, IpcCanBeTurnedOffOnAnyRank) {
  RunOptions options;
  options.rank_env = [](int rank) {
    std::map<std::string, std::string> env;
    if (rank == 1) env["WEFT_CUDA_IPC"] = "0";
    return env;
  };
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        FakeDeviceRuntime& fake = use_fake_devices();
        init_process_group();
        FakeDeviceTensor t(fake, 1000, DType::kInt32, 0);
        for (int i = 0; i < 1000; ++i) t.as<int32_t>()[i] = rank * 10 + i;
        const uint64_t before = fake.bytes_through_host();
        all_reduce(t.tensor(), ReduceOp::kMax);
        EXPECT_EQ(t.as<int32_t>()[999], 1009);
        EXPECT_GT(fake.bytes_through_host(), before);  // rank 1's choice holds for both
        destroy_process_group();
      },
      options));
}

// Inputs are read after the work queued on the current stream before the call.
TEST(DeviceCollectives, InputsAreReadAfterTheCurrentStreamsWork) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    FakeDeviceTensor t(fake, 4096, DType::kFloat32, 0);
    cuda::Stream user = fake.create_stream(0);
    float* data = t.as<float>();
    fake.enqueue(user, [data, rank] {
      std::this_thread::sleep_for(50ms);  // a slow kernel writing the input
      for (int i = 0; i < 4096; ++i) data[i] = static_cast<float>(rank + 1);
    });
    {
      cuda::StreamGuard on(user.native);
      all_reduce(t.tensor());
    }
    EXPECT_EQ(data[0], 3.0f);
    EXPECT_EQ(data[4095], 3.0f);
    // The asynchronous form as well, with a blocking host collective in between.
    fake.enqueue(user, [data] {
      std::this_thread::sleep_for(30ms);
      for (int i = 0; i < 4096; ++i) data[i] = 2.0f;
    });
    Request r;
    {
      cuda::StreamGuard on(user.native);
      r = iall_reduce(t.tensor(), ReduceOp::kProduct);
    }
    int32_t host = rank;
    all_reduce(view(std::span(&host, 1)));
    EXPECT_EQ(host, 1);
    r.wait();
    EXPECT_EQ(data[17], 4.0f);
    fake.destroy_stream(user);
    destroy_process_group();
  }));
}

TEST(DeviceCollectives, BadDeviceTensorsAreRefusedNamingTheArgument) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices(2);
    init_process_group();
    FakeDeviceTensor on_1(fake, 8, DType::kFloat32, 1);
    std::vector<float> host(8);
    const std::string who = "(rank " + std::to_string(rank) + " of group world)";
    EXPECT_EQ(
        refusal_of([&] { all_reduce(cuda::device_tensor(host.data(), 8, DType::kFloat32, 5)); }),
        "all_reduce " + who + ": input is on cuda:5, but this process has 2 CUDA devices");
    EXPECT_EQ(
        refusal_of([&] { broadcast(cuda::device_tensor(host.data(), 8, DType::kFloat32, 0), 0); }),
        "broadcast " + who +
            ": tensor is on cuda:0, but its data pointer is not memory of that device: it "
            "is host memory");
    EXPECT_EQ(refusal_of([&] {
                send(cuda::device_tensor(on_1.tensor().data(), 8, DType::kFloat32, 0), 1 - rank);
              }),
              "send " + who +
                  ": the tensor is on cuda:0, but its data pointer is not memory of that device: "
                  "it is memory of cuda:1");
    // Nothing was sent: the ranks still agree on the next collective.
    all_reduce(on_1.tensor());
    destroy_process_group();
  }));
}

// A rank that cannot map a peer's memory fails, and so does every other rank, whose
// output lacks that rank's part; the group stays usable. (On one device rank 0 works
// for both, so it is the one that maps and fails.)
TEST(DeviceCollectives, ARankFailingItsIpcPartFailsTheCallEverywhere) {
  if (!expect_ipc()) GTEST_SKIP() << "only ranks that share memory use CUDA IPC";
  expect_all_succeeded(run_ranks(2, [](int rank) {
    FakeDeviceRuntime& fake = use_fake_devices();
    init_process_group();
    FakeDeviceTensor t(fake, 1000, DType::kFloat32, 0);
    if (rank == 0) fake.fail_next_opens(2);
    try {
      all_reduce(t.tensor());
      ADD_FAILURE() << "the all_reduce succeeded";
    } catch (const Error& e) {
      const std::string what = e.what();
      if (rank == 0) {
        EXPECT_NE(what.find("open_memory: resource already mapped"), std::string::npos) << what;
      } else {
        EXPECT_EQ(e.code(), ErrorCode::kPeer);
        EXPECT_NE(what.find("rank 0 could not do its part over CUDA IPC"), std::string::npos)
            << what;
      }
    }
    for (int i = 0; i < 1000; ++i) t.as<float>()[i] = 1.0f;
    all_reduce(t.tensor());
    EXPECT_EQ(t.as<float>()[999], 2.0f);
    destroy_process_group();
  }));
}

// A rank passing host tensors where the others pass device tensors cannot be told
// from one that called another collective: it fails, it does not hang.
TEST(DeviceCollectives, MixingHostAndDeviceRanksFailsInsteadOfHanging) {
  RunOptions options;
  options.env["WEFT_TIMEOUT"] = "5";
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        FakeDeviceRuntime& fake = use_fake_devices();
        init_process_group();
        FakeDeviceTensor d(fake, 64, DType::kFloat32, 0);
        std::vector<float> h(64);
        Tensor t = rank == 0 ? d.tensor() : view(h);
        EXPECT_THROW(all_reduce(t), Error);
      },
      options));
}

}  // namespace
}  // namespace weft::testing

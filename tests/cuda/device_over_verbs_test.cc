// Device tensors over verbs links (the soft verbs device) with the fake device runtime,
// whose "device memory" is host memory and exports no dma-buf: the process's GPUDirect
// choice is "staged", its INFO line says so once, and device buffers, staged through
// host memory, arrive intact both ways, eager and by RDMA WRITE.
#include <gtest/gtest.h>

#include <string>

#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "weft/cuda.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

void fill(const FakeDeviceTensor& t, int32_t first) {
  for (uint64_t i = 0; i < t.tensor().count(); ++i) t.as<int32_t>()[i] = first + i;
}

uint64_t wrong(const FakeDeviceTensor& t, int32_t first) {
  uint64_t n = 0;
  for (uint64_t i = 0; i < t.tensor().count(); ++i) n += t.as<int32_t>()[i] != first + int32_t(i);
  return n;
}

RunOptions over_verbs(const std::string& gpudirect) {
  RunOptions options;
  options.env = {{"WEFT_TRANSPORTS", "ib"}, {"WEFT_TEST_SOFT_VERBS", "1"}, {"WEFT_DEBUG", "INFO"}};
  if (!gpudirect.empty()) options.env["WEFT_IB_GPUDIRECT"] = gpudirect;
  return options;
}

void exchange_device_buffers(int rank) {
  FakeDeviceRuntime& fake = use_fake_devices();
  init_process_group();
  const int peer = 1 - rank;
  // Eager, and larger than an eager verbs buffer and the eager limit (RDMA WRITE).
  for (uint64_t count : {5u, 300000u}) {
    FakeDeviceTensor mine(fake, count, DType::kInt32, 0), theirs(fake, count, DType::kInt32, 0);
    fill(mine, 1000 * rank);
    fill(theirs, -1);
    Request r = irecv(theirs.tensor(), peer, 1);
    send(mine.tensor(), peer, 1);
    r.wait();
    EXPECT_EQ(r.bytes(), count * 4);
    EXPECT_EQ(wrong(theirs, 1000 * peer), 0u) << count << " elements";
  }
  // Staged: the layer copied through host memory, both ways.
  EXPECT_GE(fake.bytes_through_host(), 2u * (5 + 300000) * 4);
  destroy_process_group();
}

TEST(DeviceOverVerbs, FakeDeviceBuffersAreStagedAndArriveIntact) {
  auto ranks = run_ranks(2, exchange_device_buffers, over_verbs(""));
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(count(r.output, "verbs: device buffers: "), 1) << r.output;
    // The soft device has no ibv_reg_dmabuf_mr, and nvidia_peermem is not loaded here.
    EXPECT_EQ(count(r.output,
                    "verbs: device buffers: staged through host memory (no GPUDirect RDMA: no "
                    "dma-buf (libibverbs has no ibv_reg_dmabuf_mr) and nvidia_peermem is not "
                    "loaded)"),
              1)
        << r.output;
  }
}

TEST(DeviceOverVerbs, OffStagesWithoutAskingTheDevice) {
  auto ranks = run_ranks(2, exchange_device_buffers, over_verbs("off"));
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(count(r.output,
                    "verbs: device buffers: staged through host memory (WEFT_IB_GPUDIRECT=off)"),
              1)
        << r.output;
  }
}

}  // namespace
}  // namespace weft::testing

// GPUDirect RDMA on the data path, over the soft verbs device (with ibv_reg_dmabuf_mr:
// WEFT_TEST_SOFT_VERBS_DMA_BUF) and the fake device runtime offering dma-bufs of its
// memfds: the process's choice is dma-buf, said once; device buffers of messages above
// the eager limit go to the link unstaged and are registered by dma-buf (no copy
// through host memory), smaller ones are staged exactly as before, and every byte
// arrives, both ways, whatever the other end's memory and whatever the sender chose.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/cuda/fake_device_buffers.h"
#include "tests/harness/multiprocess.h"
#include "weft/cuda.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

constexpr uint64_t kSmall = 1 << 8;                  // 1 KiB of int32: eager, staged
constexpr uint64_t kLarge = 2 << 20;                 // 8 MiB: one RDMA transfer
constexpr uint64_t kPiecesAndTail = (4 << 20) + 25;  // 16 MiB + 100 bytes: two pieces,
                                                     // the second below an eager buffer

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

void fill(int32_t* data, uint64_t n, int32_t first) {
  for (uint64_t i = 0; i < n; ++i) data[i] = first + int32_t(i);
}

uint64_t wrong(const int32_t* data, uint64_t n, int32_t first) {
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) bad += data[i] != first + int32_t(i);
  return bad;
}

// What one exchange cost this rank: bytes copied through pinned host memory (staging)
// and device ranges exported as dma-bufs (each a registration by GPUDirect RDMA).
struct Cost {
  uint64_t staged = 0;
  uint64_t exports = 0;
};

struct Exchange {
  uint64_t sent;      // elements sent
  uint64_t capacity;  // elements the receive buffer holds
  bool send_on_device;
  bool receive_on_device;
};

// Both ranks send to each other at once: an irecv, then a blocking send.
Cost exchange(FakeDeviceRuntime& fake, const Exchange& e, int rank) {
  const int peer = 1 - rank;
  FakeDeviceTensor device_out(fake, e.sent, DType::kInt32, 0);
  FakeDeviceTensor device_in(fake, e.capacity, DType::kInt32, 0);
  std::vector<int32_t> host_out(e.sent), host_in(e.capacity);
  const Tensor out =
      e.send_on_device ? device_out.tensor() : Tensor(host_out.data(), e.sent, DType::kInt32);
  const Tensor in =
      e.receive_on_device ? device_in.tensor() : Tensor(host_in.data(), e.capacity, DType::kInt32);
  fill(static_cast<int32_t*>(out.data()), e.sent, 1000 * rank);
  fill(static_cast<int32_t*>(in.data()), e.capacity, -1);
  const uint64_t staged = fake.bytes_through_host(), exports = fake.dma_buf_exports();
  Request r = irecv(in, peer, 7);
  send(out, peer, 7);
  r.wait();
  EXPECT_EQ(r.bytes(), e.sent * 4);
  EXPECT_EQ(wrong(static_cast<int32_t*>(in.data()), e.sent, 1000 * peer), 0u)
      << e.sent << " elements";
  return {fake.bytes_through_host() - staged, fake.dma_buf_exports() - exports};
}

void exchange_by_gpudirect(int rank) {
  FakeDeviceRuntime& fake = use_fake_devices();
  fake.offer_dma_buf(true);
  init_process_group();

  // Small: staged both ways (the send's copy to host, the receive's to the device).
  Cost c = exchange(fake, {kSmall, kSmall, true, true}, rank);
  EXPECT_EQ(c.staged, 2 * kSmall * 4);
  EXPECT_EQ(c.exports, 0u);

  // Large: unstaged, the source and the target each registered by dma-buf.
  c = exchange(fake, {kLarge, kLarge, true, true}, rank);
  EXPECT_EQ(c.staged, 0u);
  EXPECT_EQ(c.exports, 2u);

  // Two pieces, the last too small for an eager buffer: still by RDMA, none copied.
  c = exchange(fake, {kPiecesAndTail, kPiecesAndTail, true, true}, rank);
  EXPECT_EQ(c.staged, 0u);
  EXPECT_EQ(c.exports, 4u);

  // A small message into a large device buffer: eager, so it lands in the staging
  // buffer and is copied to the device, as every staged one.
  c = exchange(fake, {kSmall, kLarge, true, true}, rank);
  EXPECT_EQ(c.staged, 2 * kSmall * 4);
  EXPECT_EQ(c.exports, 0u);

  // Host memory into device memory, and device memory into host memory.
  c = exchange(fake, {kPiecesAndTail, kPiecesAndTail, false, true}, rank);
  EXPECT_EQ(c.staged, 0u);
  EXPECT_EQ(c.exports, 2u);  // the target's two pieces
  c = exchange(fake, {kLarge, kLarge, true, false}, rank);
  EXPECT_EQ(c.staged, 0u);
  EXPECT_EQ(c.exports, 1u);  // the source
  destroy_process_group();
}

RunOptions over_verbs_with_dma_buf() {
  RunOptions options;
  options.env = {{"WEFT_TRANSPORTS", "ib"},
                 {"WEFT_TEST_SOFT_VERBS", "1"},
                 {"WEFT_TEST_SOFT_VERBS_DMA_BUF", "1"},
                 {"WEFT_DEBUG", "INFO"}};
  return options;
}

TEST(GpuDirectOverVerbs, LargeDeviceMessagesGoUnstagedSmallOnesStaged) {
  auto ranks = run_ranks(2, exchange_by_gpudirect, over_verbs_with_dma_buf());
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(count(r.output, "verbs: device buffers: GPUDirect RDMA by dma-buf ("), 1) << r.output;
    EXPECT_EQ(count(r.output, "above the eager limit move device buffers by RDMA"), 1) << r.output;
  }
}

}  // namespace
}  // namespace weft::testing

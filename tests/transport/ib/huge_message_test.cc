// Messages over 4 GiB over verbs, on the soft device: every length and offset of the
// link's protocol is 64-bit, and no work request carries more than one scatter/gather
// entry may (32 bits; the port's max_msg_sz, 2 GiB on the soft device, which refuses
// more). Two cases of 4 GiB + 4 KiB + 7 bytes, each checked word by word against a
// pattern that differs at every 8-byte offset (a chunk landing 4 GiB off shows):
//   - one frame as ONE transfer of one IbLink (the link's rendezvous: an RTS, a CTS
//     naming 4 GiB + 4103 bytes, RDMA WRITEs at offsets past 4 GiB, the last one
//     WRITE_WITH_IMM), with the write size left unbounded so the link's own cap is what
//     keeps each WRITE within a work request, then a zero-byte frame behind it;
//   - a message between two processes through the public API (pieces of 16 MiB, the
//     frame offsets past 4 GiB), and a zero-byte message.
// Each needs about 8.5 GiB (a sender's and a receiver's buffer, really touched); the
// test skips, saying so, where MemAvailable is lower.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/harness/available_memory.h"
#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/link_pair.h"
#include "weft/weft.h"

namespace weft::transport::ib {
namespace {

using weft::testing::available_memory_bytes;

using namespace std::chrono_literals;

constexpr uint64_t kBytes = (4ull << 30) + (4ull << 10) + 7;
// Both buffers, and room for the rest of the process.
constexpr uint64_t kNeeded = 2 * kBytes + (512ull << 20);

// Empty when there is room; else why the test skips.
std::string too_little_memory() {
  const uint64_t available = available_memory_bytes();
  if (available >= kNeeded) return "";
  return "needs " + std::to_string(kNeeded >> 20) + " MiB of available memory (MemAvailable), " +
         "this machine has " + std::to_string(available >> 20) + " MiB";
}

// An anonymous mapping, freed at the end of the scope.
struct Mapping {
  explicit Mapping(uint64_t bytes) : bytes(bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data = p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
  }
  ~Mapping() {
    if (data != nullptr) ::munmap(data, bytes);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::byte* data = nullptr;
  uint64_t bytes = 0;
};

// The pattern's 8-byte word at word index k: different for every k below 2^64.
uint64_t word(uint64_t k, uint64_t seed) { return (k + seed) * 0x9E3779B97F4A7C15ull; }

void fill(std::byte* p, uint64_t bytes, uint64_t seed) {
  auto* words = reinterpret_cast<uint64_t*>(p);
  const uint64_t n = bytes / 8;
  for (uint64_t k = 0; k < n; ++k) words[k] = word(k, seed);
  const uint64_t last = word(n, seed);
  std::memcpy(p + n * 8, &last, bytes % 8);
}

// The offset of the first byte that differs from the pattern, or bytes when none does.
uint64_t first_wrong(const std::byte* p, uint64_t bytes, uint64_t seed) {
  const auto* words = reinterpret_cast<const uint64_t*>(p);
  const uint64_t n = bytes / 8;
  for (uint64_t k = 0; k < n; ++k) {
    if (words[k] != word(k, seed)) return k * 8;
  }
  const uint64_t last = word(n, seed);
  return std::memcmp(p + n * 8, &last, bytes % 8) == 0 ? bytes : n * 8;
}

// Rank 1's side of the link: the payload goes into one buffer of the whole frame.
struct IntoBuffer : transport::LinkHandler {
  std::byte* target = nullptr;
  std::vector<FrameHeader> done;
  std::vector<void*> sent;
  std::vector<std::string> failures;
  void on_frame(int, const FrameHeader&) override {}
  std::byte* payload_target(int, const FrameHeader&, uint64_t offset) override {
    return target + offset;
  }
  void on_payload_done(int, const FrameHeader& h) override { done.push_back(h); }
  void on_sent(int, void* cookie) override { sent.push_back(cookie); }
  void on_link_failed(int, const base::Failure& failure) override {
    failures.push_back(failure.why());
  }
};

TEST(HugeMessage, OneTransferOfMoreThanFourGibibytesOverOneLink) {
  if (std::string why = too_little_memory(); !why.empty()) GTEST_SKIP() << why;
  Mapping source(kBytes), target(kBytes);
  ASSERT_NE(source.data, nullptr);
  ASSERT_NE(target.data, nullptr);
  fill(source.data, kBytes, 1);
  IntoBuffer into;
  into.target = target.data;
  testing::PairOptions options;
  options.link.piece_bytes = std::numeric_limits<uint64_t>::max();
  // Unbounded: the link caps each WRITE at what one work request carries and the port
  // takes (the soft device fails a longer one, as adapters do).
  options.link.write_bytes = std::numeric_limits<uint64_t>::max();
  testing::LinkPair pair(options, &into);

  int cookie = 0;
  pair.link0->send(testing::frame(kBytes, 7), source.data, &cookie);
  pair.link0->send(testing::frame(0, 8), nullptr, nullptr);
  ASSERT_TRUE(
      pair.pump([&] { return into.done.size() == 2 || !into.failures.empty(); }, 100'000'000));
  ASSERT_TRUE(into.failures.empty()) << into.failures[0];
  ASSERT_TRUE(pair.handler0.failures.empty()) << pair.handler0.failures[0];
  EXPECT_EQ(pair.link0->transfers_started(), 1u);  // one rendezvous, no pieces
  EXPECT_EQ(into.done[0].payload_bytes, kBytes);
  EXPECT_EQ(into.done[0].tag, 7);
  EXPECT_EQ(into.done[1].payload_bytes, 0u);
  EXPECT_EQ(into.done[1].tag, 8);
  ASSERT_TRUE(
      pair.pump([&] { return !pair.handler0.sent.empty() || !pair.handler0.failures.empty(); }));
  EXPECT_EQ(first_wrong(target.data, kBytes, 1), kBytes) << "the payload arrived damaged";
}

TEST(HugeMessage, MoreThanFourGibibytesBetweenTwoRanks) {
  if (!weft::testing::is_rank_process()) {
    if (std::string why = too_little_memory(); !why.empty()) GTEST_SKIP() << why;
  }
  weft::testing::RunOptions options;
  options.env = {{"WEFT_TRANSPORTS", "ib"}, {"WEFT_TEST_SOFT_VERBS", "1"}};
  options.timeout = std::chrono::seconds(600);
  weft::testing::expect_all_succeeded(weft::testing::run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        std::vector<uint8_t> none;
        Mapping buffer(kBytes);
        ASSERT_NE(buffer.data, nullptr);
        weft::Tensor t(buffer.data, kBytes, weft::DType::kUInt8);
        if (rank == 0) {
          fill(buffer.data, kBytes, 2);
          weft::send(t, 1, 1);
          weft::send(weft::view(none), 1, 2);
        } else {
          weft::Request r = weft::irecv(t, 0, 1);
          weft::Request empty = weft::irecv(weft::view(none), 0, 2);
          r.wait(300s);
          empty.wait(60s);
          EXPECT_EQ(r.bytes(), kBytes);
          EXPECT_EQ(empty.bytes(), 0u);
          EXPECT_EQ(first_wrong(buffer.data, kBytes, 2), kBytes) << "the message arrived damaged";
        }
        weft::destroy_process_group();
      },
      options));
}

}  // namespace
}  // namespace weft::transport::ib

// A message larger than 4 GiB: counts, offsets and system-call sizes are 64-bit all
// the way through. Needs about 5 GiB of free memory (the receiver's buffer); skipped,
// saying so, where there is less.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <string>

#include "tests/harness/available_memory.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using weft::testing::available_memory_bytes;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;

constexpr uint64_t kBytes = (4ull << 30) + 4097;  // over 2^32 elements of uint8
const uint64_t kMarks[] = {
    0, 4095, (1ull << 31) + 1, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, kBytes - 1};

uint8_t* map(uint64_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

TEST(LargeMessage, MoreThanFourGibibytes) {
  if (!weft::testing::is_rank_process() && available_memory_bytes() < (6ull << 30)) {
    GTEST_SKIP() << "needs 6 GiB of available memory, this machine has "
                 << (available_memory_bytes() >> 20) << " MiB";
  }
  weft::testing::RunOptions options;
  options.timeout = std::chrono::seconds(600);
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        // The sender's untouched pages read as zeros without taking memory; only the
        // receiver's buffer is really allocated.
        uint8_t* buffer = map(kBytes);
        ASSERT_NE(buffer, nullptr);
        weft::Tensor t(buffer, kBytes, weft::DType::kUInt8);
        if (rank == 0) {
          for (uint64_t i : kMarks) buffer[i] = static_cast<uint8_t>(1 + i % 251);
          weft::send(t, 1);
        } else {
          buffer[0] = 0xEE;
          weft::Request r = weft::irecv(t, 0);
          r.wait();
          EXPECT_EQ(r.bytes(), kBytes);
          uint64_t wrong = 0;
          size_t mark = 0;
          for (uint64_t i = 0; i < kBytes; ++i) {
            uint8_t want = 0;
            if (mark < std::size(kMarks) && kMarks[mark] == i)
              want = static_cast<uint8_t>(1 + i % 251), ++mark;
            wrong += buffer[i] != want;
          }
          EXPECT_EQ(wrong, 0u);
        }
        munmap(buffer, kBytes);
        weft::destroy_process_group();
      },
      options));
}

}  // namespace

// The soft device's ibv_reg_dmabuf_mr: it registers a range at its iova only where the
// descriptor's file is what this process maps there, from the offset given, and refuses
// anything else (EINVAL, naming why), so that a registration by dma-buf that "worked"
// always names the memory it claims to.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace weft::testing {
namespace {

constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

// A memfd of four pages mapped shared, as the fake device runtime's allocations are.
struct MappedMemfd {
  MappedMemfd() {
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    fd = memfd_create("soft-dma-buf-test", MFD_CLOEXEC);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, 4 * page), 0);
    base =
        static_cast<std::byte*>(mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    EXPECT_NE(base, MAP_FAILED);
  }
  ~MappedMemfd() {
    munmap(base, 4 * page);
    close(fd);
  }
  uint64_t at(size_t offset) const { return reinterpret_cast<uint64_t>(base + offset); }

  size_t page = 0;
  int fd = -1;
  std::byte* base = nullptr;
};

TEST(SoftVerbsDmaBuf, RegistersTheMappedRangeAtItsIova) {
  Endpoint end;
  MappedMemfd memory;
  ibv_mr* whole =
      soft_verbs::reg_dmabuf_mr(end.pd, 0, 4 * memory.page, memory.at(0), memory.fd, kAccess);
  ASSERT_NE(whole, nullptr) << soft_verbs_last_error();
  EXPECT_EQ(reinterpret_cast<uint64_t>(whole->addr), memory.at(0));
  EXPECT_EQ(whole->length, 4 * memory.page);
  // A part, from an offset within the dma-buf.
  ibv_mr* part = soft_verbs::reg_dmabuf_mr(end.pd, memory.page, memory.page + 10,
                                           memory.at(memory.page), memory.fd, kAccess);
  ASSERT_NE(part, nullptr) << soft_verbs_last_error();
  EXPECT_EQ(end.api.dereg_mr(part), 0);
  EXPECT_EQ(end.api.dereg_mr(whole), 0);
}

TEST(SoftVerbsDmaBuf, RefusesADescriptorThatIsNotTheMemoryThere) {
  Endpoint end;
  MappedMemfd memory, other;
  std::vector<std::byte> heap(4 * memory.page);
  struct Case {
    const char* what;
    uint64_t offset, length, iova;
    int fd;
  };
  const Case cases[] = {
      {"another offset", memory.page, memory.page, memory.at(0), memory.fd},
      {"another memfd", 0, memory.page, memory.at(0), other.fd},
      {"heap memory", 0, memory.page, reinterpret_cast<uint64_t>(heap.data()), memory.fd},
      {"past the mapping", 0, 5 * memory.page, memory.at(0), memory.fd},
      {"no descriptor", 0, memory.page, memory.at(0), -1},
  };
  for (const Case& c : cases) {
    errno = 0;
    EXPECT_EQ(soft_verbs::reg_dmabuf_mr(end.pd, c.offset, c.length, c.iova, c.fd, kAccess), nullptr)
        << c.what;
    EXPECT_EQ(errno, EINVAL) << c.what;
    EXPECT_NE(soft_verbs_last_error().find("reg_dmabuf_mr"), std::string::npos) << c.what;
  }
}

TEST(SoftVerbsDmaBuf, IsInTheTableOnlyWhenAskedFor) {
  // This test's environment does not set WEFT_TEST_SOFT_VERBS_DMA_BUF.
  EXPECT_EQ(soft_verbs_api().reg_dmabuf_mr, nullptr);
}

}  // namespace
}  // namespace weft::testing

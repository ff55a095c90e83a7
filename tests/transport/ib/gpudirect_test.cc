// GPUDirect RDMA without a GPU or an adapter: the choice between dma-buf, peermem and
// staging for every combination of made-up facts, WEFT_IB_GPUDIRECT's parsing, the
// peermem module's detection, and the registration of "device" memory by each path
// over the soft device, with a made-up dma-buf export and ibv_reg_dmabuf_mr that record
// what they were given. Real dma-buf registration (a GPU, an adapter, the driver's
// export) is not exercised here: tools/gpu_check.sh's hosts are where it would run.
#include "transport/ib/gpudirect.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "transport/ib/device_memory.h"
#include "transport/ib/device_registration.h"
#include "transport/ib/verbs_context.h"
#include "weft/error.h"

namespace weft::transport::ib {
namespace {

GpuDirectInputs gpu_host() {
  GpuDirectInputs in;
  in.verbs_dma_buf = true;
  in.peermem = true;
  return in;
}

TEST(GpuDirectChoice, DmaBufWhenLibibverbsAndTheDriverBothCan) {
  const GpuDirectChoice c = choose_gpudirect(gpu_host());
  EXPECT_EQ(c.path, DeviceBufferPath::kDmaBuf);
  EXPECT_STREQ(path_name(c.path), "dma-buf");
}

TEST(GpuDirectChoice, PeermemWhenDmaBufIsMissingEitherSide) {
  GpuDirectInputs old_verbs = gpu_host();
  old_verbs.verbs_dma_buf = false;
  GpuDirectChoice c = choose_gpudirect(old_verbs);
  EXPECT_EQ(c.path, DeviceBufferPath::kPeerMem);
  EXPECT_NE(c.reason.find("no ibv_reg_dmabuf_mr"), std::string::npos) << c.reason;

  GpuDirectInputs old_driver = gpu_host();
  old_driver.device_no_dma_buf = "the CUDA driver has no cuMemGetHandleForAddressRange";
  c = choose_gpudirect(old_driver);
  EXPECT_EQ(c.path, DeviceBufferPath::kPeerMem);
  EXPECT_NE(c.reason.find("cuMemGetHandleForAddressRange"), std::string::npos) << c.reason;
}

TEST(GpuDirectChoice, StagedWithoutDmaBufOrPeermem) {
  GpuDirectInputs in = gpu_host();
  in.device_no_dma_buf = "cuda:1 does not support dma-buf";
  in.peermem = false;
  const GpuDirectChoice c = choose_gpudirect(in);
  EXPECT_EQ(c.path, DeviceBufferPath::kStaged);
  EXPECT_EQ(c.reason,
            "no GPUDirect RDMA: no dma-buf (cuda:1 does not support dma-buf) and nvidia_peermem "
            "is not loaded");
  EXPECT_EQ(describe(c),
            "verbs: device buffers: staged through host memory (no GPUDirect RDMA: no dma-buf "
            "(cuda:1 does not support dma-buf) and nvidia_peermem is not loaded)");
}

TEST(GpuDirectChoice, StagedWithoutAGpuOrWhenTurnedOffWhateverElseHolds) {
  GpuDirectInputs no_gpu = gpu_host();
  no_gpu.no_device = "no CUDA device is present";
  GpuDirectChoice c = choose_gpudirect(no_gpu);
  EXPECT_EQ(c.path, DeviceBufferPath::kStaged);
  EXPECT_EQ(c.reason, "no GPU: no CUDA device is present");

  GpuDirectInputs off = gpu_host();
  off.setting = GpuDirectSetting::kOff;
  c = choose_gpudirect(off);
  EXPECT_EQ(c.path, DeviceBufferPath::kStaged);
  EXPECT_EQ(c.reason, "WEFT_IB_GPUDIRECT=off");
}

TEST(GpuDirectChoice, TheLineSaysSmallMessagesAreStillStaged) {
  const std::string line = describe(choose_gpudirect(gpu_host()));
  EXPECT_EQ(line.rfind("verbs: device buffers: GPUDirect RDMA by dma-buf (", 0), 0u) << line;
  EXPECT_NE(line.find("above the eager limit move device buffers by RDMA, smaller ones are "
                      "staged in host memory"),
            std::string::npos)
      << line;
}

TEST(GpuDirectSetting, AutoByDefaultOffOnRequestAnythingElseRefused) {
  EXPECT_EQ(parse_gpudirect_setting(std::nullopt), GpuDirectSetting::kAuto);
  EXPECT_EQ(parse_gpudirect_setting("auto"), GpuDirectSetting::kAuto);
  EXPECT_EQ(parse_gpudirect_setting("off"), GpuDirectSetting::kOff);
  try {
    parse_gpudirect_setting("on");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "WEFT_IB_GPUDIRECT=on: expected auto or off");
  }
}

TEST(GpuDirectInputs, OffAsksNothingOfTheGpu) {
  struct Refusing final : DeviceMemory {
    std::string unusable() override {
      ADD_FAILURE() << "asked";
      return "";
    }
    std::string dma_buf_unsupported() override {
      ADD_FAILURE() << "asked";
      return "";
    }
    DmaBuf export_dma_buf(const void*, uint64_t, int) override { return {}; }
    void copy_to_host(void*, const void*, uint64_t, int) override {}
  } refusing;
  install_device_memory(&refusing);
  ::setenv("WEFT_IB_GPUDIRECT", "off", 1);
  const GpuDirectInputs in = gpudirect_inputs(weft::testing::soft_verbs_api());
  ::unsetenv("WEFT_IB_GPUDIRECT");
  install_device_memory(nullptr);
  EXPECT_EQ(choose_gpudirect(in).path, DeviceBufferPath::kStaged);
}

TEST(GpuDirectInputs, WithoutADeviceLayerThereIsNoGpu) {
  install_device_memory(nullptr);
  const GpuDirectInputs in = gpudirect_inputs(weft::testing::soft_verbs_api());
  EXPECT_EQ(in.no_device, "no device layer is linked in");
}

TEST(GpuDirectInputs, PeermemIsTheModulesDirectory) {
  char dir[] = "/tmp/weft-gpudirect-test-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  EXPECT_FALSE(peermem_loaded(dir));
  const std::string module = std::string(dir) + "/nvidia_peermem";
  ASSERT_EQ(::mkdir(module.c_str(), 0700), 0);
  EXPECT_TRUE(peermem_loaded(dir));
  ::rmdir(module.c_str());
  ::rmdir(dir);
}

// ---------------------------------------------------------------------------------------
// Registration, over the soft device: its ibv_reg_mr stands for what the adapter does
// with the pages a dma-buf names.

// What the made-up ibv_reg_dmabuf_mr was given, and whether it fails.
struct DmaBufCall {
  int calls = 0;
  uint64_t offset = 0, length = 0, iova = 0;
  int fd = -1, access = 0;
  bool fd_open = false;  // the descriptor was open while it ran
  int fail_with = 0;
};
DmaBufCall g_call;

ibv_mr* recording_reg_dmabuf_mr(ibv_pd* pd, uint64_t offset, size_t length, uint64_t iova, int fd,
                                int access) {
  g_call.calls++;
  g_call.offset = offset;
  g_call.length = length;
  g_call.iova = iova;
  g_call.fd = fd;
  g_call.access = access;
  g_call.fd_open = ::fcntl(fd, F_GETFD) != -1;
  if (g_call.fail_with != 0) {
    errno = g_call.fail_with;
    return nullptr;
  }
  return weft::testing::soft_verbs_api().reg_mr(pd, reinterpret_cast<void*>(iova), length, access);
}

// "Device memory" that exports as a memfd, a page at a time, as the driver exports
// whole host pages.
struct MadeUpGpu final : DeviceMemory {
  std::string unusable() override { return ""; }
  std::string dma_buf_unsupported() override { return ""; }
  DmaBuf export_dma_buf(const void* address, uint64_t bytes, int device) override {
    ++exports;
    if (!refuse.empty()) throw Error(ErrorCode::kInternal, refuse);
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<uint64_t>(address) & ~(page - 1);
    const uint64_t end = (reinterpret_cast<uint64_t>(address) + bytes + page - 1) & ~(page - 1);
    last_device = device;
    return {::memfd_create("weft-made-up-dmabuf", MFD_CLOEXEC), 0, first, end - first};
  }
  void copy_to_host(void*, const void*, uint64_t, int) override {}
  int exports = 0;
  int last_device = -1;
  std::string refuse;
};

struct DeviceRegistration : ::testing::Test {
  DeviceRegistration() {
    api = weft::testing::soft_verbs_api();
    api.reg_dmabuf_mr = recording_reg_dmabuf_mr;
    context = VerbsContext::open(api, "softib0", 1, 1, {});
    g_call = {};
    buffer.reset(static_cast<std::byte*>(std::aligned_alloc(4096, 3 * 4096)));
  }
  VerbsApi api;
  std::shared_ptr<VerbsContext> context;
  MadeUpGpu gpu;
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> buffer;
  static constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
};

TEST_F(DeviceRegistration, DmaBufRegistersTheExportedPagesAtTheDeviceAddressAndClosesTheFd) {
  std::string why;
  std::byte* p = buffer.get() + 100;  // not page-aligned, and crossing into a second page
  ibv_mr* mr = register_device_memory(api, context->pd(), DeviceBufferPath::kDmaBuf, &gpu, p, 5000,
                                      1, kAccess, &why);
  ASSERT_NE(mr, nullptr) << why;
  EXPECT_EQ(gpu.exports, 1);
  EXPECT_EQ(gpu.last_device, 1);
  EXPECT_EQ(g_call.calls, 1);
  EXPECT_EQ(g_call.iova, reinterpret_cast<uint64_t>(buffer.get()));
  EXPECT_EQ(g_call.length, 2u * 4096);
  EXPECT_EQ(g_call.offset, 0u);
  EXPECT_EQ(g_call.access, kAccess);
  EXPECT_TRUE(g_call.fd_open);
  // The region keeps its own reference to the dma-buf; the descriptor is closed.
  EXPECT_EQ(::fcntl(g_call.fd, F_GETFD), -1);
  EXPECT_EQ(api.dereg_mr(mr), 0);
}

TEST_F(DeviceRegistration, AFailingDmaBufRegistrationFailsLoudlyAndTriesNothingElse) {
  g_call.fail_with = EOPNOTSUPP;
  std::string why;
  ibv_mr* mr = register_device_memory(api, context->pd(), DeviceBufferPath::kDmaBuf, &gpu,
                                      buffer.get(), 4096, 0, kAccess, &why);
  EXPECT_EQ(mr, nullptr);
  EXPECT_EQ(why,
            "GPUDirect RDMA by dma-buf: 4096 bytes of cuda:0 memory: ibv_reg_dmabuf_mr of "
            "4096 bytes failed: " +
                std::string(std::strerror(EOPNOTSUPP)));
  EXPECT_EQ(::fcntl(g_call.fd, F_GETFD), -1);  // closed on failure too
}

TEST_F(DeviceRegistration, AFailingExportFailsLoudlyWithTheDriversReason) {
  gpu.refuse =
      "cuMemGetHandleForAddressRange(0x1000, 4096 bytes, DMA_BUF_FD): operation not supported";
  std::string why;
  EXPECT_EQ(register_device_memory(api, context->pd(), DeviceBufferPath::kDmaBuf, &gpu,
                                   buffer.get(), 4096, 0, kAccess, &why),
            nullptr);
  EXPECT_EQ(why,
            "GPUDirect RDMA by dma-buf: 4096 bytes of cuda:0 memory: exporting it as a "
            "dma-buf failed: " +
                gpu.refuse);
  EXPECT_EQ(g_call.calls, 0);
}

TEST_F(DeviceRegistration, WithoutIbvRegDmabufMrDmaBufIsRefusedNotReplaced) {
  api.reg_dmabuf_mr = nullptr;
  std::string why;
  EXPECT_EQ(register_device_memory(api, context->pd(), DeviceBufferPath::kDmaBuf, &gpu,
                                   buffer.get(), 4096, 0, kAccess, &why),
            nullptr);
  EXPECT_EQ(why,
            "GPUDirect RDMA by dma-buf: 4096 bytes of cuda:0 memory: libibverbs has no "
            "ibv_reg_dmabuf_mr");
  EXPECT_EQ(gpu.exports, 0);
}

TEST_F(DeviceRegistration, PeermemRegistersTheDevicePointerItself) {
  std::string why;
  ibv_mr* mr = register_device_memory(api, context->pd(), DeviceBufferPath::kPeerMem, &gpu,
                                      buffer.get(), 4096, 0, kAccess, &why);
  ASSERT_NE(mr, nullptr) << why;
  EXPECT_EQ(mr->addr, buffer.get());
  EXPECT_EQ(gpu.exports, 0);
  EXPECT_EQ(g_call.calls, 0);
  EXPECT_EQ(api.dereg_mr(mr), 0);
}

TEST_F(DeviceRegistration, StagedRegistersNoDeviceMemory) {
  std::string why;
  EXPECT_EQ(register_device_memory(api, context->pd(), DeviceBufferPath::kStaged, &gpu,
                                   buffer.get(), 4096, 0, kAccess, &why),
            nullptr);
  EXPECT_NE(why.find("staged through host memory"), std::string::npos) << why;
  EXPECT_EQ(gpu.exports + g_call.calls, 0);
}

}  // namespace
}  // namespace weft::transport::ib

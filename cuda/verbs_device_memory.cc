// The device layer's answers to the verbs transport about GPU memory
// (transport/ib/device_memory.h), over the process's device runtime, installed when
// libweft loads. The transport asks only when a verbs link is made and
// WEFT_IB_GPUDIRECT is not off (transport/ib/gpudirect.h).
#include "cuda/device_runtime.h"
#include "cuda/device_workspace.h"
#include "transport/ib/device_memory.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

class VerbsDeviceMemory final : public transport::ib::DeviceMemory {
 public:
  std::string unusable() override {
    try {
      return device_runtime().device_count() > 0 ? "" : "no CUDA device is present";
    } catch (const Error& e) {
      return e.what();
    }
  }

  // Every device of the process must export, so that the choice holds for each buffer.
  std::string dma_buf_unsupported() override {
    try {
      DeviceRuntime& runtime = device_runtime();
      const int devices = runtime.device_count();
      for (int d = 0; d < devices; ++d) {
        if (std::string why = runtime.why_no_dma_buf(d); !why.empty()) return why;
      }
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  }

  transport::ib::DmaBuf export_dma_buf(const void* address, uint64_t bytes, int device) override {
    const DmaBufRange range = device_runtime().export_dma_buf(address, bytes, device);
    // The range exported is the dma-buf, from its start.
    return {range.fd, 0, reinterpret_cast<uint64_t>(range.base), range.bytes};
  }

  void copy_to_host(void* dst, const void* src, uint64_t bytes, int device) override {
    DeviceWorkspace& workspace = DeviceWorkspace::of(device_runtime());
    const Stream stream = workspace.stream(device);
    workspace.runtime().copy(dst, src, bytes, stream);
    workspace.runtime().synchronize_stream(stream);
  }
};

VerbsDeviceMemory g_memory;

[[maybe_unused]] const bool g_installed = [] {
  transport::ib::install_device_memory(&g_memory);
  return true;
}();

}  // namespace
}  // namespace weft::cuda

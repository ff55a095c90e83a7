#include "transport/ib/gpudirect.h"

#include <unistd.h>

#include <mutex>

#include "base/env.h"
#include "base/log.h"
#include "transport/ib/device_memory.h"
#include "weft/error.h"

namespace weft::transport::ib {

GpuDirectSetting parse_gpudirect_setting(const std::optional<std::string>& value) {
  if (!value || *value == "auto") return GpuDirectSetting::kAuto;
  if (*value == "off") return GpuDirectSetting::kOff;
  throw InvalidArgument("WEFT_IB_GPUDIRECT=" + *value + ": expected auto or off");
}

const char* path_name(DeviceBufferPath path) {
  switch (path) {
    case DeviceBufferPath::kDmaBuf:
      return "dma-buf";
    case DeviceBufferPath::kPeerMem:
      return "peermem";
    case DeviceBufferPath::kStaged:
      return "staged";
  }
  return "unknown";
}

GpuDirectChoice choose_gpudirect(const GpuDirectInputs& in) {
  if (in.setting == GpuDirectSetting::kOff) {
    return {DeviceBufferPath::kStaged, "WEFT_IB_GPUDIRECT=off"};
  }
  if (!in.no_device.empty()) return {DeviceBufferPath::kStaged, "no GPU: " + in.no_device};
  const std::string no_dma_buf =
      !in.verbs_dma_buf ? "libibverbs has no ibv_reg_dmabuf_mr" : in.device_no_dma_buf;
  if (no_dma_buf.empty()) {
    return {DeviceBufferPath::kDmaBuf,
            "libibverbs has ibv_reg_dmabuf_mr and the GPUs' memory exports as dma-bufs"};
  }
  if (in.peermem) {
    return {DeviceBufferPath::kPeerMem, "nvidia_peermem is loaded; no dma-buf: " + no_dma_buf};
  }
  return {DeviceBufferPath::kStaged,
          "no GPUDirect RDMA: no dma-buf (" + no_dma_buf + ") and nvidia_peermem is not loaded"};
}

std::string describe(const GpuDirectChoice& choice) {
  // Say which messages take it: the line must not promise a zero-copy path that small
  // messages do not take (docs/ARCHITECTURE.md, "Verbs").
  constexpr const char* kStillStaged =
      "; point-to-point messages above the eager limit move device buffers by RDMA, smaller "
      "ones are staged in host memory";
  switch (choice.path) {
    case DeviceBufferPath::kDmaBuf:
      return "verbs: device buffers: GPUDirect RDMA by dma-buf (" + choice.reason + ")" +
             kStillStaged;
    case DeviceBufferPath::kPeerMem:
      return "verbs: device buffers: GPUDirect RDMA by peermem, ibv_reg_mr on device pointers (" +
             choice.reason + ")" + kStillStaged;
    case DeviceBufferPath::kStaged:
      break;
  }
  return "verbs: device buffers: staged through host memory (" + choice.reason + ")";
}

bool peermem_loaded(const std::string& modules) {
  return ::access((modules + "/nvidia_peermem").c_str(), F_OK) == 0;
}

GpuDirectInputs gpudirect_inputs(const VerbsApi& api) {
  GpuDirectInputs in;
  in.setting = parse_gpudirect_setting(base::env::get("WEFT_IB_GPUDIRECT"));
  if (in.setting == GpuDirectSetting::kOff) return in;
  DeviceMemory* memory = installed_device_memory();
  if (memory == nullptr) {
    in.no_device = "no device layer is linked in";
    return in;
  }
  in.no_device = memory->unusable();
  if (!in.no_device.empty()) return in;
  in.verbs_dma_buf = api.reg_dmabuf_mr != nullptr;
  if (in.verbs_dma_buf) in.device_no_dma_buf = memory->dma_buf_unsupported();
  in.peermem = peermem_loaded();
  return in;
}

const GpuDirectChoice& process_gpudirect_choice(const VerbsApi& api) {
  static std::once_flag once;
  static GpuDirectChoice choice;
  // A malformed variable throws out of call_once, which leaves it to the next call.
  std::call_once(once, [&api] {
    choice = choose_gpudirect(gpudirect_inputs(api));
    WEFT_LOG(INFO) << describe(choice);
  });
  return choice;
}

}  // namespace weft::transport::ib

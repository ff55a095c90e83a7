// GPUDirect RDMA: how device (CUDA) memory would reach the adapter, decided once per
// process from what the host offers, in this order:
//   dma-buf   the device layer exports the memory as a dma-buf (the driver's
//             cuMemGetHandleForAddressRange) and libibverbs registers that with
//             ibv_reg_dmabuf_mr: the kernel's own mechanism, no extra module;
//   peermem   the nvidia_peermem module is loaded: ibv_reg_mr takes a device pointer
//             as it takes a host one;
//   staged    neither (or WEFT_IB_GPUDIRECT=off, or no GPU): device memory is copied
//             through host memory, and only host memory is registered.
// The choice is a pure function of those facts (choose_gpudirect), so that every
// combination is tested without a GPU or an adapter; process_gpudirect_choice() finds
// the facts and logs the one INFO line that says which it is.
//
// Where the choice is dma-buf or peermem, point-to-point messages above the eager limit
// hand device memory to the link (runtime/api/p2p.cc, p2p/engine_device.cc), which
// registers it by device_registration.h for its transfer; smaller messages, other
// links and "staged" stage device buffers in host memory as before.
// docs/ARCHITECTURE.md, "Verbs".
#pragma once

#include <optional>
#include <string>

#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

enum class GpuDirectSetting { kAuto, kOff };

// WEFT_IB_GPUDIRECT's value: unset or "auto" is kAuto, "off" kOff; anything else throws
// InvalidArgument naming the variable.
GpuDirectSetting parse_gpudirect_setting(const std::optional<std::string>& value);

enum class DeviceBufferPath { kDmaBuf, kPeerMem, kStaged };

// "dma-buf", "peermem", "staged".
const char* path_name(DeviceBufferPath path);

// What the choice depends on.
struct GpuDirectInputs {
  GpuDirectSetting setting = GpuDirectSetting::kAuto;
  std::string no_device;          // why no GPU can be used; empty when one can
  bool verbs_dma_buf = false;     // libibverbs has ibv_reg_dmabuf_mr
  std::string device_no_dma_buf;  // why the GPUs' memory cannot be a dma-buf; empty: it can
  bool peermem = false;           // the nvidia_peermem module is loaded
};

struct GpuDirectChoice {
  DeviceBufferPath path = DeviceBufferPath::kStaged;
  std::string reason;  // why this path, and why not the ones before it
};

GpuDirectChoice choose_gpudirect(const GpuDirectInputs& inputs);

// "verbs: device buffers: GPUDirect RDMA by dma-buf (...)": the INFO line.
std::string describe(const GpuDirectChoice& choice);

// Whether the nvidia_peermem module is loaded: `modules`/nvidia_peermem exists.
bool peermem_loaded(const std::string& modules = "/sys/module");

// The facts for `api` on this host: WEFT_IB_GPUDIRECT, then (unless it is off, which
// asks nothing of the GPU) the installed device layer (device_memory.h), the table's
// ibv_reg_dmabuf_mr and the peermem module.
GpuDirectInputs gpudirect_inputs(const VerbsApi& api);

// This process's choice, made from gpudirect_inputs(api) on the first call and logged
// at INFO then; later calls return it. Throws InvalidArgument for a malformed
// WEFT_IB_GPUDIRECT.
const GpuDirectChoice& process_gpudirect_choice(const VerbsApi& api);

}  // namespace weft::transport::ib

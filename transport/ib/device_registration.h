// Registering device (GPU) memory with the adapter by the GPUDirect RDMA path of
// gpudirect.h. Each failure says which call failed and why: a registration that does
// not work must never look as if it did, nor fall back to another path unasked.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "transport/ib/device_memory.h"
#include "transport/ib/gpudirect.h"
#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

// Registers [address, address + bytes) of `device`'s memory in `pd` with `access`:
//   kDmaBuf   exported by `memory` as a dma-buf (whole host pages) and registered with
//             ibv_reg_dmabuf_mr at the device address itself (the iova), so that work
//             requests name device addresses as they name host ones; the descriptor is
//             closed again (the region keeps the dma-buf);
//   kPeerMem  ibv_reg_mr on the device pointer, which nvidia_peermem pins.
// kStaged registers nothing: staged memory is host memory. Returns the region (deregister
// it with api.dereg_mr), or nullptr with the reason in *why.
ibv_mr* register_device_memory(const VerbsApi& api, ibv_pd* pd, DeviceBufferPath path,
                               DeviceMemory* memory, const void* address, uint64_t bytes,
                               int device, int access, std::string* why);

}  // namespace weft::transport::ib

#include "transport/ib/device_registration.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "weft/error.h"

namespace weft::transport::ib {
namespace {

std::string errno_text(int error) { return error != 0 ? std::strerror(error) : "no reason given"; }

std::string where(uint64_t bytes, int device) {
  return std::to_string(bytes) + " bytes of cuda:" + std::to_string(device) + " memory";
}

ibv_mr* register_dma_buf(const VerbsApi& api, ibv_pd* pd, DeviceMemory* memory, const void* address,
                         uint64_t bytes, int device, int access, std::string* why) {
  const std::string what = "GPUDirect RDMA by dma-buf: " + where(bytes, device);
  if (api.reg_dmabuf_mr == nullptr) {
    *why = what + ": libibverbs has no ibv_reg_dmabuf_mr";
    return nullptr;
  }
  if (memory == nullptr) {
    *why = what + ": no device layer to export the memory";
    return nullptr;
  }
  DmaBuf buf;
  try {
    buf = memory->export_dma_buf(address, bytes, device);
  } catch (const Error& e) {
    *why = what + ": exporting it as a dma-buf failed: " + e.what();
    return nullptr;
  }
  const auto first = reinterpret_cast<uint64_t>(address);
  if (buf.fd < 0 || first < buf.address || first - buf.address > buf.bytes ||
      bytes > buf.bytes - (first - buf.address)) {
    if (buf.fd >= 0) ::close(buf.fd);
    *why = what + ": the exported dma-buf (fd " + std::to_string(buf.fd) + ", " +
           std::to_string(buf.bytes) + " bytes) does not cover it";
    return nullptr;
  }
  errno = 0;
  ibv_mr* mr = api.reg_dmabuf_mr(pd, buf.offset, buf.bytes, buf.address, buf.fd, access);
  const int error = errno;
  // The region holds its own reference to the dma-buf: the descriptor is ours to close.
  ::close(buf.fd);
  if (mr == nullptr) {
    *why = what + ": ibv_reg_dmabuf_mr of " + std::to_string(buf.bytes) +
           " bytes failed: " + errno_text(error);
  }
  return mr;
}

}  // namespace

ibv_mr* register_device_memory(const VerbsApi& api, ibv_pd* pd, DeviceBufferPath path,
                               DeviceMemory* memory, const void* address, uint64_t bytes,
                               int device, int access, std::string* why) {
  switch (path) {
    case DeviceBufferPath::kDmaBuf:
      return register_dma_buf(api, pd, memory, address, bytes, device, access, why);
    case DeviceBufferPath::kPeerMem: {
      errno = 0;
      ibv_mr* mr = api.reg_mr(pd, const_cast<void*>(address), bytes, access);
      if (mr == nullptr) {
        const int error = errno;
        *why = "GPUDirect RDMA by peermem: ibv_reg_mr of " + where(bytes, device) +
               " failed: " + errno_text(error) + " (is nvidia_peermem working?)";
      }
      return mr;
    }
    case DeviceBufferPath::kStaged:
      break;
  }
  *why = "device memory is staged through host memory here (" + where(bytes, device) +
         " cannot be registered): no GPUDirect RDMA";
  return nullptr;
}

}  // namespace weft::transport::ib

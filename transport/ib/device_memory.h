// DeviceMemory: what the verbs transport asks of the device layer (cuda/, a layer
// above it) about GPU memory: whether a GPU is there at all, and a range of device
// memory as a dma-buf, which ibv_reg_dmabuf_mr registers for GPUDirect RDMA
// (gpudirect.h). The device layer installs its implementation when it is linked in
// (libweft links one); a program without it has none, and device memory never reaches
// the adapter directly.
#pragma once

#include <cstdint>
#include <string>

namespace weft::transport::ib {

// A range of device memory exported as a dma-buf.
struct DmaBuf {
  int fd = -1;           // a new descriptor, which the caller closes
  uint64_t offset = 0;   // where the range starts within the dma-buf
  uint64_t address = 0;  // the range's device address in this process
  uint64_t bytes = 0;    // its length (whole host pages)
};

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Why no GPU can be used ("no CUDA device is present", a build without CUDA); empty
  // when one can.
  virtual std::string unusable() = 0;
  // Why the memory of this process's GPUs cannot be exported as dma-bufs (a driver
  // without cuMemGetHandleForAddressRange, a device without dma-buf support); empty
  // when it can.
  virtual std::string dma_buf_unsupported() = 0;
  // [address, address + bytes) of `device`'s memory, widened to whole host pages, as a
  // dma-buf. Throws weft::Error naming the driver's call and its reason.
  virtual DmaBuf export_dma_buf(const void* address, uint64_t bytes, int device) = 0;
  // Copies `bytes` of `device`'s memory at `src` to host memory at `dst` (by the device
  // runtime: the CPU cannot read device memory), returning once they are there. For an
  // abandoned send whose RDMA transfer is under way, which must go on from a copy.
  virtual void copy_to_host(void* dst, const void* src, uint64_t bytes, int device) = 0;
};

// Installs the device layer's implementation (nullptr: none), which must outlive its use.
void install_device_memory(DeviceMemory* memory);
// The implementation installed, or nullptr.
DeviceMemory* installed_device_memory();

}  // namespace weft::transport::ib

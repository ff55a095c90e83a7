// DeviceRuntime over the CUDA runtime API (the static cudart), for builds with
// --config=cuda. Nothing here touches CUDA before a method is called: cudart then
// loads the driver itself, and a machine without one gets Error(kState) saying so.
//
// Every call that takes a device, a stream or an event makes its device current
// first (cudaSetDevice costs nothing when it already is), since the runtime's calls
// act on the calling thread's current device.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device_runtime.h"
#include "cuda/runtime/reduce_kernels.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(IpcMemHandle::bytes));

// The errors that mean "no CUDA here" rather than "weft did something wrong".
bool means_unavailable(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:  // the toolkit's stub libcuda loaded instead of a driver
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void fail(cudaError_t e, const std::string& call) {
  // Clears the runtime's last error too, so that a later launch check does not see it.
  cudaGetLastError();
  if (means_unavailable(e)) {
    throw Error(ErrorCode::kState, "CUDA is unavailable: " + call + ": " + cudaGetErrorString(e));
  }
  throw Error(ErrorCode::kInternal, call + ": " + cudaGetErrorString(e));
}

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) [[unlikely]] {
    fail(e, call);
  }
}

void use_device(int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) [[unlikely]] {
    fail(e, "cudaSetDevice(" + std::to_string(device) + ")");
  }
}

std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// The driver's cuMemGetAddressRange, looked up through cudart so that weft never links
// libcuda (which a machine without a GPU does not have).
struct DriverCalls {
  PFN_cuMemGetAddressRange_v3020 get_address_range = nullptr;
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;
};

const DriverCalls& driver_calls() {
  static std::once_flag once;
  static DriverCalls calls;
  static cudaError_t error = cudaSuccess;
  static std::string failed_symbol;
  std::call_once(once, [] {
    const auto find = [](const char* symbol, void** fn, unsigned version) {
      cudaDriverEntryPointQueryResult found{};
      const cudaError_t e =
          cudaGetDriverEntryPointByVersion(symbol, fn, version, cudaEnableDefault, &found);
      if (e != cudaSuccess) {
        error = e;
        failed_symbol = symbol;
      } else if (found != cudaDriverEntryPointSuccess) {
        error = cudaErrorSymbolNotFound;
        failed_symbol = symbol;
      }
    };
    find("cuMemGetAddressRange", reinterpret_cast<void**>(&calls.get_address_range), 3020);
    find("cuGetErrorString", reinterpret_cast<void**>(&calls.get_error_string), 6000);
  });
  if (error != cudaSuccess) fail(error, "cudaGetDriverEntryPointByVersion(" + failed_symbol + ")");
  return calls;
}

// The driver calls of GPUDirect RDMA by dma-buf, looked up as those above but optional:
// a driver before CUDA 11.7 lacks cuMemGetHandleForAddressRange, and then device memory
// is registered another way (or staged), which `why_not` says.
struct DmaBufCalls {
  PFN_cuMemGetHandleForAddressRange_v11070 get_handle = nullptr;
  PFN_cuDeviceGetAttribute_v2000 get_attribute = nullptr;
  std::string why_not;
};

const DmaBufCalls& dma_buf_calls() {
  static const DmaBufCalls calls = [] {
    DmaBufCalls c;
    const auto find = [&c](const char* symbol, void** fn, unsigned version) {
      cudaDriverEntryPointQueryResult found{};
      const cudaError_t e =
          cudaGetDriverEntryPointByVersion(symbol, fn, version, cudaEnableDefault, &found);
      if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        if (c.why_not.empty()) {
          c.why_not = std::string("the CUDA driver has no ") + symbol +
                      (e != cudaSuccess ? std::string(" (") + cudaGetErrorString(e) + ")" : "");
        }
      }
    };
    find("cuMemGetHandleForAddressRange", reinterpret_cast<void**>(&c.get_handle), 11070);
    find("cuDeviceGetAttribute", reinterpret_cast<void**>(&c.get_attribute), 2000);
    return c;
  }();
  return calls;
}

std::string driver_error(const DriverCalls& calls, CUresult r) {
  const char* text = nullptr;
  if (calls.get_error_string(r, &text) != CUDA_SUCCESS || text == nullptr) {
    return "CUresult " + std::to_string(static_cast<int>(r));
  }
  return text;
}

class CudaDeviceRuntime final : public DeviceRuntime {
 public:
  std::string describe() override {
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    const auto version = [](int v) {
      return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    };
    std::string text = "cuda " + version(runtime) + " (driver " +
                       (driver == 0 ? std::string("none") : version(driver)) + ")";
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
      cudaGetLastError();
      return text + ": no device (" + cudaGetErrorString(e) + ")";
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      const bool named = cudaGetDeviceProperties(&prop, d) == cudaSuccess;
      if (!named) cudaGetLastError();
      text += (d == 0 ? ": " : ", ") + std::string("cuda:") + std::to_string(d) + " " +
              (named ? prop.name : "(unnamed)");
    }
    return text;
  }

  int device_count() override {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (count == 0) throw Error(ErrorCode::kState, "CUDA is unavailable: there is no CUDA device");
    return count;
  }

  DeviceUuid device_uuid(int device) override {
    static_assert(sizeof(cudaUUID_t) == sizeof(DeviceUuid::bytes));
    // The properties are read once per device: cudaGetDeviceProperties takes far longer
    // than a collective's other steps.
    std::lock_guard lock(uuids_mutex_);
    if (device >= 0 && device < static_cast<int>(uuids_.size()) && uuids_[device]) {
      return *uuids_[device];
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    DeviceUuid uuid;
    std::memcpy(uuid.bytes.data(), &prop.uuid, sizeof uuid.bytes);
    if (device >= static_cast<int>(uuids_.size())) uuids_.resize(device + 1);
    uuids_[device] = uuid;
    return uuid;
  }

  bool can_access_peer(int device, int peer) override {
    int can = 0;
    check(cudaDeviceCanAccessPeer(&can, device, peer), "cudaDeviceCanAccessPeer");
    return can != 0;
  }

  std::string check_pointer(const void* p, uint64_t bytes, int device) override {
    if (bytes == 0) return "";
    if (p == nullptr) return "it is a null pointer";
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, p), "cudaPointerGetAttributes");
    const std::string wanted = "cuda:" + std::to_string(device);
    switch (attributes.type) {
      case cudaMemoryTypeUnregistered:
        return "it is host memory, which CUDA does not know (not " + wanted + " memory)";
      case cudaMemoryTypeHost:
        return "it is page-locked host memory, not memory of " + wanted;
      case cudaMemoryTypeDevice:
      case cudaMemoryTypeManaged:
        if (attributes.device != device) {
          return "it is memory of cuda:" + std::to_string(attributes.device) + ", not of " + wanted;
        }
        break;
    }
    const AllocationRange range = allocation_of(p, device);
    const auto* first = static_cast<const std::byte*>(p);
    if (bytes > range.size - static_cast<uint64_t>(first - range.base)) {
      return "its " + std::to_string(bytes) + " bytes run past the end of its allocation (" +
             std::to_string(range.size) + " bytes at " + hex(range.base) + ")";
    }
    return "";
  }

  AllocationRange allocation_of(const void* p, int device) override {
    const DriverCalls& calls = driver_calls();
    use_device(device);
    CUdeviceptr base = 0;
    size_t size = 0;
    const CUresult r = calls.get_address_range(&base, &size, reinterpret_cast<CUdeviceptr>(p));
    if (r != CUDA_SUCCESS) {
      throw Error(ErrorCode::kInternal,
                  "cuMemGetAddressRange(" + hex(p) + "): " + driver_error(calls, r));
    }
    return {reinterpret_cast<std::byte*>(base), size};
  }

  IpcMemHandle export_memory(const void* base, int device) override {
    use_device(device);
    cudaIpcMemHandle_t handle;
    check(cudaIpcGetMemHandle(&handle, const_cast<void*>(base)), "cudaIpcGetMemHandle");
    IpcMemHandle exported;
    std::memcpy(exported.bytes.data(), &handle, sizeof handle);
    return exported;
  }

  void* open_memory(const IpcMemHandle& handle, int device) override {
    use_device(device);
    cudaIpcMemHandle_t native;
    std::memcpy(&native, handle.bytes.data(), sizeof native);
    void* base = nullptr;
    check(cudaIpcOpenMemHandle(&base, native, cudaIpcMemLazyEnablePeerAccess),
          "cudaIpcOpenMemHandle");
    return base;
  }

  void close_memory(void* base, int device) override {
    use_device(device);
    check(cudaIpcCloseMemHandle(base), "cudaIpcCloseMemHandle");
  }

  std::string why_no_dma_buf(int device) override {
    const DmaBufCalls& dma = dma_buf_calls();
    if (!dma.why_not.empty()) return dma.why_not;
    int supported = 0;
    // A CUdevice is the runtime's device ordinal.
    if (const CUresult r =
            dma.get_attribute(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, device);
        r != CUDA_SUCCESS) {
      return "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cuda:" +
             std::to_string(device) + "): " + driver_error(driver_calls(), r);
    }
    return supported ? "" : "cuda:" + std::to_string(device) + " does not support dma-buf";
  }

  DmaBufRange export_dma_buf(const void* p, uint64_t bytes, int device) override {
    const DmaBufCalls& dma = dma_buf_calls();
    if (!dma.why_not.empty()) throw Error(ErrorCode::kState, dma.why_not);
    use_device(device);
    // The driver takes whole host pages only.
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
    const auto end = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
    int fd = -1;
    if (const CUresult r = dma.get_handle(&fd, static_cast<CUdeviceptr>(first), end - first,
                                          CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
        r != CUDA_SUCCESS) {
      throw Error(ErrorCode::kInternal,
                  "cuMemGetHandleForAddressRange(" + hex(reinterpret_cast<void*>(first)) + ", " +
                      std::to_string(end - first) +
                      " bytes, DMA_BUF_FD): " + driver_error(driver_calls(), r));
    }
    return {fd, reinterpret_cast<std::byte*>(first), end - first};
  }

  void* allocate_device(uint64_t bytes, int device) override {
    use_device(device);
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
      fail(e, "cudaMalloc(" + std::to_string(bytes) + " bytes on cuda:" + std::to_string(device) +
                  ")");
    }
    return p;
  }

  void free_device(void* p, int device) override {
    use_device(device);
    check(cudaFree(p), "cudaFree");
  }

  // Portable: page-locked for every device, not only the current one.
  void* allocate_pinned(uint64_t bytes) override {
    void* p = nullptr;
    if (const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable); e != cudaSuccess) {
      fail(e, "cudaHostAlloc(" + std::to_string(bytes) + " bytes)");
    }
    return p;
  }

  void free_pinned(void* p) override { check(cudaFreeHost(p), "cudaFreeHost"); }

  // Non-blocking: weft's streams never wait for the legacy default stream's work, which
  // belongs to the application.
  Stream create_stream(int device) override {
    use_device(device);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return {stream, device};
  }

  void destroy_stream(Stream stream) override {
    if (stream.native == nullptr) return;  // the default stream is not weft's to destroy
    use_device(stream.device);
    check(cudaStreamDestroy(native(stream)), "cudaStreamDestroy");
  }

  // Events only order work; timing would make recording them cost more.
  Event create_event(int device) override {
    use_device(device);
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return {event, device};
  }

  void destroy_event(Event event) override {
    use_device(event.device);
    check(cudaEventDestroy(native(event)), "cudaEventDestroy");
  }

  void record(Event event, Stream stream) override {
    use_device(stream.device);
    check(cudaEventRecord(native(event), native(stream)), "cudaEventRecord");
  }

  void wait_event(Stream stream, Event event) override {
    use_device(stream.device);
    check(cudaStreamWaitEvent(native(stream), native(event), 0), "cudaStreamWaitEvent");
  }

  bool event_done(Event event) override {
    use_device(event.device);
    const cudaError_t e = cudaEventQuery(native(event));
    if (e == cudaErrorNotReady) return false;
    check(e, "cudaEventQuery");
    return true;
  }

  void synchronize_event(Event event) override {
    use_device(event.device);
    check(cudaEventSynchronize(native(event)), "cudaEventSynchronize");
  }

  void synchronize_stream(Stream stream) override {
    use_device(stream.device);
    check(cudaStreamSynchronize(native(stream)), "cudaStreamSynchronize");
  }

  void copy(void* dst, const void* src, uint64_t bytes, Stream stream) override {
    if (bytes == 0) return;
    use_device(stream.device);
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, native(stream)), "cudaMemcpyAsync");
  }

  void reduce(const ReduceTask& task, Stream stream) override {
    use_device(stream.device);
    launch_reduce(task, stream.native);
  }

 private:
  static cudaStream_t native(Stream stream) { return static_cast<cudaStream_t>(stream.native); }
  static cudaEvent_t native(Event event) { return static_cast<cudaEvent_t>(event.native); }

  std::mutex uuids_mutex_;
  std::vector<std::optional<DeviceUuid>> uuids_;  // by device index, read on first use
};

}  // namespace

DeviceRuntime& built_in_device_runtime() {
  // Constructed on first use and never destroyed: streams and events may still be
  // released by other static objects' destructors at exit.
  static auto* runtime = new CudaDeviceRuntime();
  return *runtime;
}

}  // namespace weft::cuda

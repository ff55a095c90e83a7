// The device runtime of a build without CUDA: every call refuses, naming the fix, so
// that a program asking for a GPU tensor learns why it cannot have one.
#include <string>

#include "cuda/device_runtime.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

constexpr const char* kNoCuda =
    "this build of weft has no CUDA support: rebuild with bazel build --config=cuda";

[[noreturn]] void refuse() { throw Error(ErrorCode::kState, kNoCuda); }

class NoDeviceRuntime final : public DeviceRuntime {
 public:
  std::string describe() override { return std::string("no CUDA (") + kNoCuda + ")"; }
  int device_count() override { refuse(); }
  DeviceUuid device_uuid(int) override { refuse(); }
  bool can_access_peer(int, int) override { refuse(); }
  // No memory is ever device memory here; the reason is the same as for every call.
  std::string check_pointer(const void*, uint64_t, int) override { return kNoCuda; }
  AllocationRange allocation_of(const void*, int) override { refuse(); }
  IpcMemHandle export_memory(const void*, int) override { refuse(); }
  void* open_memory(const IpcMemHandle&, int) override { refuse(); }
  void close_memory(void*, int) override { refuse(); }
  std::string why_no_dma_buf(int) override { return kNoCuda; }
  DmaBufRange export_dma_buf(const void*, uint64_t, int) override { refuse(); }
  void* allocate_device(uint64_t, int) override { refuse(); }
  void free_device(void*, int) override { refuse(); }
  void* allocate_pinned(uint64_t) override { refuse(); }
  void free_pinned(void*) override { refuse(); }
  Stream create_stream(int) override { refuse(); }
  void destroy_stream(Stream) override { refuse(); }
  Event create_event(int) override { refuse(); }
  void destroy_event(Event) override { refuse(); }
  void record(Event, Stream) override { refuse(); }
  void wait_event(Stream, Event) override { refuse(); }
  bool event_done(Event) override { refuse(); }
  void synchronize_event(Event) override { refuse(); }
  void synchronize_stream(Stream) override { refuse(); }
  void copy(void*, const void*, uint64_t, Stream) override { refuse(); }
  void reduce(const ReduceTask&, Stream) override { refuse(); }
};

}  // namespace

DeviceRuntime& built_in_device_runtime() {
  static NoDeviceRuntime runtime;
  return runtime;
}

}  // namespace weft::cuda

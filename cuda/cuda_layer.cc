// The device layer weft links in: it registers itself with core at start-up and takes
// every call with a device tensor (runtime/device_interface.h).
#include <memory>

#include "cuda/device_call.h"
#include "cuda/device_runtime.h"
#include "cuda/ipc_collectives.h"
#include "cuda/staging.h"
#include "runtime/device_interface.h"
#include "weft/cuda.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

thread_local void* t_current_stream = nullptr;

base::Failure refusal(std::string why) { return {ErrorCode::kInvalidArgument, std::move(why)}; }

class CudaLayer : public runtime::DeviceLayer {
 public:
  base::Failure check_tensor(const Tensor& tensor) override {
    DeviceRuntime& runtime = device_runtime();
    int devices = 0;
    try {
      devices = runtime.device_count();
    } catch (const Error& e) {
      return refusal(std::string("but ") + e.what());
    }
    const int index = tensor.device().index;
    if (index < 0 || index >= devices) {
      return refusal("but this process has " + std::to_string(devices) + " CUDA device" +
                     (devices == 1 ? "" : "s"));
    }
    if (tensor.bytes() == 0) return {};
    std::string why = runtime.check_pointer(tensor.data(), tensor.bytes(), index);
    if (why.empty()) return {};
    return refusal("but its data pointer is not memory of that device: " + why);
  }

  void prepare(runtime::DeviceCall& call) override {
    auto state = std::make_shared<DeviceCallState>();
    state->runtime = &device_runtime();
    state->ready = std::make_unique<ReadyEvent>(*state->runtime, call_device(call));
    call.layer_state = std::move(state);
  }

  void run(const runtime::DeviceCall& call, const runtime::HostStep& host) override {
    DeviceWorkspace& workspace = DeviceWorkspace::of(*state_of(call).runtime);
    if (ipc_serves(call) && run_over_ipc(call, host, workspace)) return;
    switch (call.spec.kind) {
      case collectives::CollectiveKind::kBroadcast:
      case collectives::CollectiveKind::kAllReduce:
      case collectives::CollectiveKind::kReduce:
        return run_pipelined(call, host, workspace, staging_chunk_bytes());
      default:
        return run_staged(call, host, workspace);
    }
  }

  StagedMessage stage_send(const Tensor& tensor) override {
    DeviceWorkspace& workspace = DeviceWorkspace::of(device_runtime());
    auto lease = std::make_shared<DeviceWorkspace::PinnedLease>(workspace.pinned(tensor.bytes()));
    copy_after_current_stream(workspace, tensor.device().index, lease->data(), tensor.data(),
                              tensor.bytes());
    return StagedMessage{host_like(tensor, lease->data()), lease};
  }

  StagedMessage stage_receive(const Tensor& tensor) override {
    DeviceWorkspace& workspace = DeviceWorkspace::of(device_runtime());
    auto lease = std::make_shared<DeviceWorkspace::PinnedLease>(workspace.pinned(tensor.bytes()));
    return StagedMessage{host_like(tensor, lease->data()), lease};
  }

  void await_current_stream(const Tensor& tensor) override {
    ReadyEvent(device_runtime(), tensor.device().index).wait();
  }

  void deliver(const Tensor& tensor, const StagedMessage& staged, uint64_t bytes) override {
    if (bytes == 0) return;
    // The message lands after what the caller queued before it asked for it.
    copy_after_current_stream(DeviceWorkspace::of(device_runtime()), tensor.device().index,
                              tensor.data(), staged.host.data(), bytes);
  }
};

CudaLayer g_layer;

// libweft registers its device layer before main() runs.
[[maybe_unused]] const bool g_registered = [] {
  runtime::register_device_layer(&g_layer);
  return true;
}();

}  // namespace

int call_device(const runtime::DeviceCall& call) {
  return runtime::on_device(call.input) ? call.input.device().index : call.output.device().index;
}

ReadyEvent::ReadyEvent(DeviceRuntime& runtime, int device)
    : ReadyEvent(runtime, Stream{t_current_stream, device}) {}

ReadyEvent::ReadyEvent(DeviceRuntime& runtime, Stream caller)
    : runtime_(runtime), event_(runtime.create_event(caller.device)) {
  runtime_.record(event_, caller);
}

void copy_after_current_stream(DeviceWorkspace& workspace, int device, void* dst, const void* src,
                               uint64_t bytes) {
  Stream stream = workspace.stream(device);
  ReadyEvent ready(workspace.runtime(), device);
  ready.order_before(stream);
  workspace.runtime().copy(dst, src, bytes, stream);
  workspace.runtime().synchronize_stream(stream);
}

ReadyEvent::~ReadyEvent() {
  try {
    runtime_.destroy_event(event_);
  } catch (...) {
  }
}

int device_count() {
  try {
    return device_runtime().device_count();
  } catch (const Error&) {
    return 0;
  }
}

std::string unavailable_reason() {
  try {
    const int devices = device_runtime().device_count();
    return devices > 0 ? "" : "no CUDA device is present";
  } catch (const Error& e) {
    return e.what();
  }
}

void set_current_stream(void* stream) { t_current_stream = stream; }
void* current_stream() { return t_current_stream; }

}  // namespace weft::cuda

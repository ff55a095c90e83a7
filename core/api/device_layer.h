// DeviceLayer: where the public API hands calls with device (CUDA) tensors.
//
// core moves host memory only. The device layer (cuda/) registers itself here when it
// is linked in (libweft always links it); the public functions then pass it every
// call that has a device tensor: it checks the tensors when the call is validated,
// marks when their data is ready (on the caller's current stream) before the call is
// queued, and runs the call, staging through host memory or moving device memory
// directly (CUDA IPC). Calls it runs inside a collective's turn use the collective's
// tag, one after another, as the steps of a single collective.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/api/collective_call.h"
#include "weft/tensor.h"

namespace weft::core {

// Runs a host collective as one step of the device collective being executed.
using HostCollectiveRunner = std::function<void(const CollectiveCall&)>;

class DeviceLayer {
 public:
  virtual ~DeviceLayer() = default;

  // Why `tensor` cannot be used as a device tensor (an empty string when it can):
  // no CUDA support, no such device, memory of another device or of the host.
  virtual std::string check_tensor(const Tensor& tensor) = 0;

  // Before the call is run or queued, in the caller's thread: records that the
  // call's inputs are ready once the work queued so far on the current stream is.
  virtual void prepare(CollectiveCall& call) = 0;

  // Runs a collective with a device tensor; returns once its device work is complete.
  virtual void run(const CollectiveCall& call, const HostCollectiveRunner& host) = 0;

  // Point-to-point messages move through host memory: a device tensor's message is
  // staged in a host buffer, which the engine sends or receives into.
  struct StagedMessage {
    Tensor host;                 // the host buffer, as a tensor like the device one
    std::shared_ptr<void> keep;  // owns the buffer
  };
  // A host copy of `tensor`, taken after the work queued on the current stream.
  virtual StagedMessage stage_send(const Tensor& tensor) = 0;
  // A host buffer of `tensor`'s size to receive into.
  virtual StagedMessage stage_receive(const Tensor& tensor) = 0;
  // Copies the first `bytes` of a received message to `tensor`; returns when they are
  // there.
  virtual void deliver(const Tensor& tensor, const StagedMessage& staged, uint64_t bytes) = 0;
};

void register_device_layer(DeviceLayer* layer);
// The registered layer, or null when none is linked in.
DeviceLayer* find_device_layer();
// The registered layer; callers have checked the call's tensors, which needs one.
DeviceLayer& device_layer();

inline bool on_device(const Tensor& t) { return t.device().type == DeviceType::kCuda; }

// "cuda:1"
std::string device_name(Device device);

}  // namespace weft::core

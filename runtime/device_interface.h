// The device interface: where the runtime hands calls with device (CUDA) tensors.
//
// The runtime moves host memory only. A device layer (cuda/) registers itself here
// when it is linked in (libweft always links one); the public functions then pass it
// every call that has a device tensor: it checks the tensors when the call is
// validated, notes when their data is ready (on the caller's current stream) before
// the call is queued, and runs the call, staging through host memory or moving device
// memory directly (CUDA IPC). The host collectives it runs as steps of a call use that
// call's tag and turn in the group's arena, one after another, as parts of one
// collective.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/failure.h"
#include "collectives/collective_spec.h"
#include "weft/group.h"
#include "weft/tensor.h"

namespace weft::runtime {

// One collective call with a device tensor, as the device layer gets it.
struct DeviceCall {
  const char* op = "";  // the public name, e.g. "all_reduce"
  collectives::CollectiveSpec spec;
  Tensor input, output;               // either may be empty where the collective has no such buffer
  bool group_on_one_host = false;     // every member shares memory with this process
  std::shared_ptr<void> layer_state;  // the device layer's own, from prepare() to run()
};

// Runs a host collective as one step of the device call being run.
using HostStep = std::function<void(const DeviceCall& step)>;

// A host step of `kind` over `outer`'s group, for a HostStep; the caller fills in the
// counts, blocks and tensors.
DeviceCall make_step(const DeviceCall& outer, collectives::CollectiveKind kind, DType dtype);

class DeviceLayer {
 public:
  virtual ~DeviceLayer() = default;

  // Why `tensor` cannot be used as a device tensor (none when it can): no CUDA support,
  // no such device, memory of another device or of the host.
  virtual base::Failure check_tensor(const Tensor& tensor) = 0;

  // Before the call is run or queued, in the caller's thread: records that the
  // call's inputs are ready once the work queued so far on the current stream is.
  virtual void prepare(DeviceCall& call) = 0;

  // Runs a collective with a device tensor; returns once its device work is complete.
  virtual void run(const DeviceCall& call, const HostStep& host) = 0;

  // Point-to-point messages move through host memory: a device tensor's message is
  // staged in a host buffer, which the engine sends or receives into; only large ones
  // over a link that takes device memory go unstaged (await_current_stream).
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
  // Large messages that GPUDirect RDMA moves unstaged (runtime/api/p2p.cc): returns once
  // the work queued so far on the current stream of `tensor`'s device is done, so that
  // the adapter reads what that work wrote and writes nothing that work still reads.
  virtual void await_current_stream(const Tensor& tensor) = 0;
};

void register_device_layer(DeviceLayer* layer);
// The registered layer, or null when none is linked in.
DeviceLayer* find_device_layer();
// The registered layer; callers have checked the call's tensors, which needs one.
DeviceLayer& device_layer();

inline bool on_device(const Tensor& t) { return t.device().type == DeviceType::kCuda; }

// "cuda:1"
std::string device_name(Device device);

// "all_reduce_multigpu (rank 1 of group world)": how the errors of a call by this
// process on `group` begin, for calls that the device layer implements itself (the
// multi-GPU collectives). Throws InvalidArgument when this process is not a member.
std::string describe_caller(const char* op, const Group& group);

}  // namespace weft::runtime

// The multi-GPU collectives (weft/multigpu.h), composed of the device collectives on
// each process's first tensor and of copies and reductions between its devices.
#include "weft/multigpu.h"

#include <set>
#include <string>

#include "collectives/reduce/reduce_kernels.h"
#include "cuda/device_call.h"
#include "cuda/device_runtime.h"
#include "cuda/device_workspace.h"
#include "runtime/device_interface.h"
#include "weft/cuda.h"
#include "weft/error.h"
#include "weft/process_group.h"

namespace weft {
namespace {

using cuda::DeviceRuntime;
using cuda::Stream;

// The argument checks of one multi-GPU call. Its errors begin as every call's do:
// "all_reduce_multigpu (rank 1 of group world): ...".
class CallChecks {
 public:
  CallChecks(const char* op, const Group& group)
      : caller_(runtime::describe_caller(op, group)), rank_(group.rank()), size_(group.size()) {}
  int rank() const { return rank_; }
  int size() const { return size_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument(caller_ + ": " + what);
  }
  // A tensor in the memory of a CUDA device this process can use.
  void device_tensor(const Tensor& t, const std::string& name) const {
    if (static_cast<int>(t.dtype()) >= kNumDTypes) fail(name + "'s dtype is invalid");
    if (!runtime::on_device(t)) fail(name + " is host memory; each must be on a CUDA device");
    if (base::Failure refused = runtime::device_layer().check_tensor(t)) {
      fail(name + " is on " + runtime::device_name(t.device()) + ", " + refused.why());
    }
    if (t.data() == nullptr && t.count() > 0) {
      fail(name + " has " + std::to_string(t.count()) + " elements but no data pointer");
    }
  }
  // The group rank of a root given as a world rank (the int forms) or a group rank.
  int root(int world_root, const Group& group) const {
    const int in_group =
        world_root >= 0 && world_root < get_world_size() ? group.rank_of(world_root) : -1;
    if (in_group < 0) {
      fail("root " + std::to_string(world_root) +
           " (world rank) is not a member of the group (pass GroupRank{r} for the group's rank "
           "r)");
    }
    return in_group;
  }
  int root(GroupRank root, const Group&) const {
    if (root.value < 0 || root.value >= size_) {
      fail("root GroupRank{" + std::to_string(root.value) + "} is outside [0, " +
           std::to_string(size_) + ")");
    }
    return root.value;
  }
  void op_on(ReduceOp op, DType dtype) const {
    if (static_cast<int>(op) >= kNumReduceOps) fail("the reduction op is invalid");
    if (!collectives::reduce::op_supports(op, dtype)) {
      fail(std::string("op ") + reduce_op_name(op) + " is defined on integer dtypes only, not " +
           dtype_name(dtype));
    }
  }
  // `t` (named `name`) is like `first`: the same dtype and count.
  void like(const Tensor& t, const std::string& name, const Tensor& first,
            const std::string& first_name, const char* count_of) const {
    if (t.dtype() != first.dtype()) {
      fail(name + " is " + dtype_name(t.dtype()) + " but " + first_name + " is " +
           dtype_name(first.dtype()));
    }
    if (t.count() != first.count()) {
      fail(name + " has " + std::to_string(t.count()) + " elements, expected " +
           std::to_string(first.count()) + " (" + count_of + ")");
    }
  }

 private:
  std::string caller_;
  int rank_, size_;
};

// Checks a list of per-GPU tensors: at least one, each on a different CUDA device,
// all of the first one's count and dtype.
void check_list(const CallChecks& check, std::span<const Tensor> tensors, const char* name) {
  if (tensors.empty()) check.fail(std::string(name) + " is empty (pass one tensor per local GPU)");
  std::set<int> devices;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string what = std::string(name) + "[" + std::to_string(i) + "]";
    const Tensor& t = tensors[i];
    check.device_tensor(t, what);
    if (!devices.insert(t.device().index).second) {
      check.fail(what + " is on " + runtime::device_name(t.device()) +
                 ", as an earlier one is; each must be on a different device");
    }
    check.like(t, what, tensors[0], std::string(name) + "[0]", "the count of the first tensor");
  }
}

// Device memory for the length of a call.
class DeviceScratch {
 public:
  DeviceScratch(DeviceRuntime& runtime, uint64_t bytes, int device)
      : runtime_(runtime), device_(device), data_(runtime.allocate_device(bytes, device)) {}
  ~DeviceScratch() {
    try {
      runtime_.free_device(data_, device_);
    } catch (...) {
    }
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  std::byte* data() const { return static_cast<std::byte*>(data_); }

 private:
  DeviceRuntime& runtime_;
  int device_;
  void* data_;
};

// The devices of one call's tensors and the layer's streams there.
class LocalDevices {
 public:
  explicit LocalDevices(std::span<const Tensor> tensors)
      : runtime_(cuda::device_runtime()), workspace_(cuda::DeviceWorkspace::of(runtime_)) {
    // The caller's work on the tensors comes first: the current stream's on the first
    // tensor's device, the default stream's on the others.
    for (size_t i = 0; i < tensors.size(); ++i) {
      const int device = tensors[i].device().index;
      cuda::ReadyEvent ready(runtime_, Stream{i == 0 ? cuda::current_stream() : nullptr, device});
      ready.order_before(stream(device));
    }
  }
  DeviceRuntime& runtime() { return runtime_; }
  Stream stream(int device) { return workspace_.stream(device); }
  void copy(const Tensor& to, const void* from, int on_device) {
    runtime_.copy(to.data(), from, to.bytes(), stream(on_device));
  }
  // Waits for what was queued on the devices of `tensors`.
  void synchronize(std::span<const Tensor> tensors) {
    for (const Tensor& t : tensors) runtime_.synchronize_stream(stream(t.device().index));
  }

 private:
  DeviceRuntime& runtime_;
  cuda::DeviceWorkspace& workspace_;
};

// into = into op tensors[1] op ... (list order), on the device of `into`, through a
// scratch copy of each other tensor.
void combine_locally(LocalDevices& local, std::span<const Tensor> tensors, const Tensor& into,
                     ReduceOp op) {
  if (tensors.size() < 2) return;
  const int device = into.device().index;
  for (const Tensor& t : tensors.subspan(1)) local.synchronize(std::span(&t, 1));
  DeviceScratch scratch(local.runtime(), into.bytes(), device);
  for (const Tensor& t : tensors.subspan(1)) {
    local.runtime().copy(scratch.data(), t.data(), t.bytes(), local.stream(device));
    const void* inputs[] = {into.data(), scratch.data()};
    void* outputs[] = {into.data()};
    cuda::ReduceTask task{op, into.dtype(), into.count(), inputs, outputs, 1};
    local.runtime().reduce(task, local.stream(device));
  }
  local.runtime().synchronize_stream(local.stream(device));
}

// Copies tensors[0] into the others.
void copy_to_the_others(LocalDevices& local, std::span<const Tensor> tensors) {
  local.synchronize(tensors.first(1));
  for (const Tensor& t : tensors.subspan(1)) local.copy(t, tensors[0].data(), t.device().index);
  local.synchronize(tensors);
}

// The number of tensors in the group (kAvg's divisor).
uint64_t tensors_in_group(std::span<const Tensor> tensors, const Group& group, Timeout timeout) {
  uint64_t count = tensors.size();
  all_reduce(view(std::span(&count, 1)), ReduceOp::kSum, group, timeout);
  return count;
}

void divide_by(LocalDevices& local, const Tensor& t, uint64_t divisor) {
  const void* inputs[] = {t.data()};
  void* outputs[] = {t.data()};
  cuda::ReduceTask task{ReduceOp::kAvg, t.dtype(), t.count(), inputs, outputs, divisor};
  local.runtime().reduce(task, local.stream(t.device().index));
  local.runtime().synchronize_stream(local.stream(t.device().index));
}

// Device collectives order their input after the current stream; the layer's own
// stream on that device has all the local work queued, so it stands in for it.
class OnLayerStream {
 public:
  OnLayerStream(LocalDevices& local, const Tensor& t)
      : guard_(local.stream(t.device().index).native) {}

 private:
  cuda::StreamGuard guard_;
};

// The rooted multi-GPU collectives, for either form of root. A process outside the
// group takes no part, as in every collective.
template <class Root>
void broadcast_on_gpus(std::span<const Tensor> tensors, Root root_given, const Group& group,
                       Timeout timeout) {
  if (!group.is_member()) return;
  CallChecks check("broadcast_multigpu", group);
  check_list(check, tensors, "tensors");
  const GroupRank root{check.root(root_given, group)};
  LocalDevices local(tensors);
  {
    OnLayerStream on(local, tensors[0]);
    broadcast(tensors[0], root, group, timeout);
  }
  copy_to_the_others(local, tensors);
}

template <class Root>
void reduce_on_gpus(std::span<const Tensor> tensors, Root root_given, ReduceOp op,
                    const Group& group, Timeout timeout) {
  if (!group.is_member()) return;
  CallChecks check("reduce_multigpu", group);
  check_list(check, tensors, "tensors");
  const GroupRank root{check.root(root_given, group)};
  check.op_on(op, tensors[0].dtype());
  LocalDevices local(tensors);
  const Tensor& first = tensors[0];
  const int device = first.device().index;
  // The local combination goes to scratch memory: only the root's first tensor changes.
  DeviceScratch partial(local.runtime(), first.bytes(), device);
  const Tensor sum(partial.data(), first.count(), first.dtype(), first.device());
  local.copy(sum, first.data(), device);
  combine_locally(local, tensors, sum, op);
  const bool is_root = check.rank() == root.value;
  const ReduceOp across = op == ReduceOp::kAvg ? ReduceOp::kSum : op;
  {
    OnLayerStream on(local, first);
    reduce(sum, is_root ? first : Tensor(nullptr, 0, first.dtype(), first.device()), root, across,
           group, timeout);
  }
  if (op == ReduceOp::kAvg) {
    const uint64_t n = tensors_in_group(tensors, group, timeout);
    if (is_root) divide_by(local, first, n);
  }
}

}  // namespace

void broadcast_multigpu(std::span<const Tensor> tensors, int root, const Group& group,
                        Timeout timeout) {
  broadcast_on_gpus(tensors, root, group, timeout);
}
void broadcast_multigpu(std::span<const Tensor> tensors, GroupRank root, const Group& group,
                        Timeout timeout) {
  broadcast_on_gpus(tensors, root, group, timeout);
}

void all_reduce_multigpu(std::span<const Tensor> tensors, ReduceOp op, const Group& group,
                         Timeout timeout) {
  if (!group.is_member()) return;  // a process outside the group takes no part
  CallChecks check("all_reduce_multigpu", group);
  check_list(check, tensors, "tensors");
  check.op_on(op, tensors[0].dtype());
  LocalDevices local(tensors);
  combine_locally(local, tensors, tensors[0], op);
  {
    OnLayerStream on(local, tensors[0]);
    all_reduce(tensors[0], op == ReduceOp::kAvg ? ReduceOp::kSum : op, group, timeout);
  }
  if (op == ReduceOp::kAvg) divide_by(local, tensors[0], tensors_in_group(tensors, group, timeout));
  copy_to_the_others(local, tensors);
}

void reduce_multigpu(std::span<const Tensor> tensors, int root, ReduceOp op, const Group& group,
                     Timeout timeout) {
  reduce_on_gpus(tensors, root, op, group, timeout);
}
void reduce_multigpu(std::span<const Tensor> tensors, GroupRank root, ReduceOp op,
                     const Group& group, Timeout timeout) {
  reduce_on_gpus(tensors, root, op, group, timeout);
}

void all_gather_multigpu(std::span<const std::vector<Tensor>> outputs,
                         std::span<const Tensor> inputs, const Group& group, Timeout timeout) {
  if (!group.is_member()) return;  // a process outside the group takes no part
  CallChecks check("all_gather_multigpu", group);
  check_list(check, inputs, "inputs");
  if (outputs.size() != inputs.size()) {
    check.fail("outputs has " + std::to_string(outputs.size()) + " lists for " +
               std::to_string(inputs.size()) + " inputs (give one list per input)");
  }
  // Every process must pass as many inputs: compare before anything else moves.
  std::vector<uint64_t> counts(check.size());
  const uint64_t mine = inputs.size();
  all_gather(view(std::span(&mine, 1)), view(counts), group, timeout);
  for (int r = 0; r < check.size(); ++r) {
    if (counts[r] != mine) {
      check.fail("this process passes " + std::to_string(mine) + " inputs but rank " +
                 std::to_string(r) + " passes " + std::to_string(counts[r]) +
                 " (every process must pass as many)");
    }
  }
  const uint64_t total = mine * check.size();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string name = "outputs[" + std::to_string(i) + "]";
    if (outputs[i].size() != total) {
      check.fail(name + " has " + std::to_string(outputs[i].size()) + " tensors, expected " +
                 std::to_string(total) + " (group size x the number of inputs)");
    }
    for (size_t g = 0; g < total; ++g) {
      const std::string what = name + "[" + std::to_string(g) + "]";
      check.device_tensor(outputs[i][g], what);
      check.like(outputs[i][g], what, inputs[0], "inputs[0]", "the count of the inputs");
      if (outputs[i][g].device() != inputs[i].device()) {
        check.fail(what + " is on " + runtime::device_name(outputs[i][g].device()) + ", not on " +
                   runtime::device_name(inputs[i].device()) + " with inputs[" + std::to_string(i) +
                   "]");
      }
    }
  }
  LocalDevices local(inputs);
  const Tensor& first = inputs[0];
  const int device = first.device().index;
  const uint64_t bytes = first.bytes();
  DeviceScratch packed_in(local.runtime(), bytes * mine, device);
  DeviceScratch packed_out(local.runtime(), bytes * total, device);
  local.synchronize(inputs);
  for (size_t j = 0; j < inputs.size(); ++j) {
    local.runtime().copy(packed_in.data() + j * bytes, inputs[j].data(), bytes,
                         local.stream(device));
  }
  {
    OnLayerStream on(local, first);
    all_gather(Tensor(packed_in.data(), first.count() * mine, first.dtype(), first.device()),
               Tensor(packed_out.data(), first.count() * total, first.dtype(), first.device()),
               group, timeout);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t g = 0; g < total; ++g) {
      local.runtime().copy(outputs[i][g].data(), packed_out.data() + g * bytes, bytes,
                           local.stream(outputs[i][g].device().index));
    }
  }
  local.synchronize(inputs);
}

}  // namespace weft

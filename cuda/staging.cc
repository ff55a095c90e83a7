#include "cuda/staging.h"

#include <algorithm>
#include <vector>

#include "base/env.h"
#include "cuda/device_call.h"

namespace weft::cuda {
namespace {

using collectives::CollectiveKind;
using runtime::DeviceCall;

// One range of device memory and its host copy.
struct StagedRange {
  std::byte* device_begin = nullptr;
  uint64_t bytes = 0;
  int device = 0;
  DeviceWorkspace::PinnedLease host;
  bool holds_output = false;

  bool contains(const Tensor& t) const {
    return bytes_of(t) >= device_begin && bytes_of(t) + t.bytes() <= device_begin + bytes;
  }
  Tensor host_view(const Tensor& t) const {
    return host_like(t, host.data() + (bytes_of(t) - device_begin));
  }
};

bool overlap(const Tensor& a, const Tensor& b) {
  return a.bytes() > 0 && b.bytes() > 0 && bytes_of(a) < bytes_of(b) + b.bytes() &&
         bytes_of(b) < bytes_of(a) + a.bytes();
}

}  // namespace

uint64_t staging_chunk_bytes() {
  static const uint64_t bytes =  // read once, not on every call
      std::max<uint64_t>(base::env::get_bytes("WEFT_CUDA_STAGING_CHUNK", 4u << 20), 4096);
  return bytes;
}

void run_staged(const DeviceCall& call, const runtime::HostStep& host, DeviceWorkspace& workspace) {
  DeviceRuntime& runtime = workspace.runtime();
  std::vector<StagedRange> ranges;
  auto add = [&](std::byte* begin, uint64_t bytes, int device) {
    StagedRange range{begin, bytes, device, workspace.pinned(bytes), false};
    ranges.push_back(std::move(range));
  };
  const Tensor& in = call.input;
  const Tensor& out = call.output;
  const bool in_on_device = runtime::on_device(in) && in.bytes() > 0;
  const bool out_on_device = runtime::on_device(out) && out.bytes() > 0;
  if (in_on_device && out_on_device && overlap(in, out)) {
    std::byte* begin = std::min(bytes_of(in), bytes_of(out));
    std::byte* end = std::max(bytes_of(in) + in.bytes(), bytes_of(out) + out.bytes());
    add(begin, end - begin, in.device().index);
  } else {
    if (in_on_device) add(bytes_of(in), in.bytes(), in.device().index);
    if (out_on_device) add(bytes_of(out), out.bytes(), out.device().index);
  }

  DeviceCall step = call;
  step.layer_state.reset();
  for (StagedRange& range : ranges) {
    if (in_on_device && range.contains(in)) step.input = range.host_view(in);
    if (out_on_device && range.contains(out)) {
      step.output = range.host_view(out);
      range.holds_output = true;
    }
  }
  // An empty device tensor has nothing to stage; the host call sees an empty tensor.
  if (runtime::on_device(step.input)) step.input = Tensor(nullptr, 0, in.dtype());
  if (runtime::on_device(step.output)) step.output = Tensor(nullptr, 0, out.dtype());

  for (StagedRange& range : ranges) {
    Stream stream = workspace.stream(range.device);
    state_of(call).ready->order_before(stream);
    runtime.copy(range.host.data(), range.device_begin, range.bytes, stream);
  }
  for (StagedRange& range : ranges) runtime.synchronize_stream(workspace.stream(range.device));

  host(step);

  for (StagedRange& range : ranges) {
    if (!range.holds_output) continue;
    Stream stream = workspace.stream(range.device);
    runtime.copy(range.device_begin, range.host.data(), range.bytes, stream);
    runtime.synchronize_stream(stream);
  }
}

void run_pipelined(const DeviceCall& call, const runtime::HostStep& host,
                   DeviceWorkspace& workspace, uint64_t chunk_bytes) {
  DeviceRuntime& runtime = workspace.runtime();
  const CollectiveKind kind = call.spec.kind;
  const bool is_root = call.spec.rank == call.spec.root;
  // What this rank moves: the input to the host, the result back.
  const bool reads = kind != CollectiveKind::kBroadcast || is_root;
  const bool writes = kind == CollectiveKind::kAllReduce ||
                      (kind == CollectiveKind::kReduce && is_root) ||
                      (kind == CollectiveKind::kBroadcast && !is_root);
  const uint64_t element = call.spec.element_bytes();
  const uint64_t count = call.spec.count;
  const uint64_t chunk = std::max<uint64_t>(1, chunk_bytes / element);
  const uint64_t chunks = std::max<uint64_t>(1, (count + chunk - 1) / chunk);
  const std::byte* source = bytes_of(call.input);
  std::byte* target = bytes_of(call.output);

  const int device = call_device(call);
  Stream stream = workspace.stream(device);
  constexpr int kSlots = 2;
  DeviceWorkspace::PinnedLease slots[kSlots];
  Event filled[kSlots];   // the chunk's input has arrived in the slot
  Event drained[kSlots];  // the slot's result has left for the device
  for (int s = 0; s < kSlots; ++s) {
    slots[s] = workspace.pinned(std::min(count, chunk) * element);
    filled[s] = runtime.create_event(device);
    drained[s] = runtime.create_event(device);
  }
  auto elements_of = [&](uint64_t k) { return std::min(chunk, count - k * chunk); };
  auto fill = [&](uint64_t k) {
    const int s = static_cast<int>(k % kSlots);
    runtime.copy(slots[s].data(), source + k * chunk * element, elements_of(k) * element, stream);
    runtime.record(filled[s], stream);
  };

  auto release_events = [&] {
    for (int s = 0; s < kSlots; ++s) {
      runtime.destroy_event(filled[s]);
      runtime.destroy_event(drained[s]);
    }
  };
  try {
    state_of(call).ready->order_before(stream);
    if (reads) {
      for (uint64_t k = 0; k < std::min<uint64_t>(kSlots, chunks); ++k) fill(k);
    }
    for (uint64_t k = 0; k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      if (reads) {
        runtime.synchronize_event(filled[s]);
      } else if (k >= kSlots) {
        runtime.synchronize_event(drained[s]);  // chunk k - 2's result has left the slot
      }
      const Tensor slot(slots[s].data(), count == 0 ? 0 : elements_of(k), call.spec.dtype);
      DeviceCall step = runtime::make_step(call, kind, call.spec.dtype);
      step.spec.op = call.spec.op;
      step.spec.root = call.spec.root;
      step.spec.count = slot.count();
      step.spec.input_in_output = 0;
      step.input = step.output = slot;
      host(step);
      if (writes) {
        runtime.copy(target + k * chunk * element, slot.data(), slot.bytes(), stream);
        runtime.record(drained[s], stream);
      }
      // In stream order after the copy out of the slot, so it cannot overwrite it.
      if (reads && k + kSlots < chunks) fill(k + kSlots);
    }
    runtime.synchronize_stream(stream);
  } catch (...) {
    // Nothing queued may still write into the slots once they go back to the pool.
    try {
      runtime.synchronize_stream(stream);
    } catch (...) {
    }
    release_events();
    throw;
  }
  release_events();
}

}  // namespace weft::cuda

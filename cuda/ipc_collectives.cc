#include "cuda/ipc_collectives.h"

#include <cstring>
#include <memory>
#include <vector>

#include "base/env.h"
#include "base/log.h"
#include "cuda/device_call.h"
#include "cuda/ipc_cache.h"
#include "weft/error.h"

namespace weft::cuda {
namespace {

using collectives::CollectiveKind;
using runtime::DeviceCall;

// One buffer as a peer can open it: its allocation's handle and where it starts there.
struct ExportedBuffer {
  IpcMemHandle handle;
  uint64_t offset = 0;
  uint8_t present = 0;
  uint8_t padding[7] = {};
};

// What each rank tells the others before the work starts. Plain bytes on the wire.
struct ExportRecord {
  uint8_t usable = 0;  // this rank can take part (see why_not_usable)
  uint8_t padding[7] = {};
  DeviceUuid device;  // the device its buffers are on
  ExportedBuffer input;
  ExportedBuffer output;
};

// Why this rank cannot take part, or an empty string.
std::string why_not_usable(const DeviceCall& call) {
  static const bool enabled = base::env::get_int("WEFT_CUDA_IPC", 1, 0, 1) != 0;  // read once
  if (!enabled) return "WEFT_CUDA_IPC=0";
  if (call.spec.size > kMaxReduceOperands) {
    return "the group has more than " + std::to_string(kMaxReduceOperands) + " members";
  }
  for (const Tensor* t : {&call.input, &call.output}) {
    if (t->bytes() > 0 && !runtime::on_device(*t)) return "a buffer is host memory";
    if (t->bytes() > 0 && t->device().index != call_device(call)) {
      return "its input and output are on different devices";
    }
  }
  if (!call.group_on_one_host) return "the group spans more than one host";
  return "";
}

ExportedBuffer export_buffer(DeviceRuntime& runtime, const Tensor& t) {
  ExportedBuffer exported;
  if (t.bytes() == 0) return exported;
  const int device = t.device().index;
  AllocationRange range = runtime.allocation_of(t.data(), device);
  exported.handle = runtime.export_memory(range.base, device);
  exported.offset = static_cast<uint64_t>(bytes_of(t) - range.base);
  exported.present = 1;
  return exported;
}

ExportRecord local_record(const DeviceCall& call, DeviceRuntime& runtime) {
  ExportRecord record;
  std::string why = why_not_usable(call);
  if (why.empty()) {
    try {
      record.device = runtime.device_uuid(call_device(call));
      record.input = export_buffer(runtime, call.input);
      record.output = export_buffer(runtime, call.output);
    } catch (const std::exception& e) {
      why = std::string("its memory cannot be exported: ") + e.what();
    }
  }
  record.usable = why.empty();
  // Once per collective and reason at INFO; every call at TRACE.
  if (!why.empty() && base::log::enabled(base::log::Level::kInfo)) {
    if (base::log::first_time(std::string("staged/") + call.op + "/" + why)) {
      WEFT_LOG(INFO) << call.op << " on " << runtime::device_name(call.input.device())
                     << ": staged through host memory, not CUDA IPC, since " << why;
    } else {
      WEFT_LOG(TRACE) << call.op << " on " << runtime::device_name(call.input.device())
                      << ": staged through host memory, not CUDA IPC, since " << why;
    }
  }
  return record;
}

// Every rank's buffers as this process addresses them: its own directly, its peers'
// through their mappings, kept open (in `mappings`) while the call runs.
struct PeerBuffers {
  std::vector<std::byte*> input, output;
  std::vector<std::shared_ptr<const IpcCache::Mapping>> mappings;
};

PeerBuffers open_peers(const DeviceCall& call, const std::vector<ExportRecord>& records,
                       IpcCache& cache) {
  const int n = call.spec.size;
  const int me = call.spec.rank;
  const int device = call_device(call);
  PeerBuffers peers;
  peers.input.assign(n, nullptr);
  peers.output.assign(n, nullptr);
  auto open = [&](const ExportedBuffer& exported) -> std::byte* {
    if (!exported.present) return nullptr;
    peers.mappings.push_back(cache.open(exported.handle, device));
    return peers.mappings.back()->base + exported.offset;
  };
  for (int r = 0; r < n; ++r) {
    if (r == me) {
      peers.input[r] = bytes_of(call.input);
      peers.output[r] = bytes_of(call.output);
    } else {
      peers.input[r] = open(records[r].input);
      peers.output[r] = open(records[r].output);
    }
  }
  return peers;
}

// Rank r's slice [begin, end) of `count` elements: equal slices, their starts on
// 64-element boundaries so that the kernels' wide loads stay aligned.
std::pair<uint64_t, uint64_t> slice_of(uint64_t count, int rank, int size) {
  uint64_t per = (count + size - 1) / size;
  per = (per + 63) / 64 * 64;
  const uint64_t begin = std::min(count, per * rank);
  return {begin, std::min(count, begin + per)};
}

void reduce_into(DeviceRuntime& runtime, Stream stream, const DeviceCall& call,
                 const std::vector<std::byte*>& inputs, uint64_t at,
                 const std::vector<std::byte*>& outputs, uint64_t count) {
  if (count == 0) return;
  const uint64_t offset = at * call.spec.element_bytes();
  std::vector<const void*> in;
  std::vector<void*> out;
  for (std::byte* p : inputs) in.push_back(p + offset);
  for (std::byte* p : outputs) out.push_back(p + offset);
  ReduceTask task;
  task.op = call.spec.op;
  task.dtype = call.spec.dtype;
  task.count = count;
  task.inputs = in;
  task.outputs = out;
  task.divisor = call.spec.op == ReduceOp::kAvg ? call.spec.size : 1;
  runtime.reduce(task, stream);
}

// The call's whole work, done by one rank for all, when every rank's buffers are on one
// device: the device runs one process's kernels at a time, so shares done by several
// processes would only take turns (each switch between them costing far more than a
// small call), while one process's kernels over all the buffers move the same bytes.
void run_alone(const DeviceCall& call, const PeerBuffers& peers, DeviceRuntime& runtime,
               Stream stream) {
  const collectives::CollectiveSpec& spec = call.spec;
  const int n = spec.size;
  const uint64_t element = spec.element_bytes();
  switch (spec.kind) {
    case CollectiveKind::kAllReduce:
      reduce_into(runtime, stream, call, peers.input, 0, peers.output, spec.count);
      return;
    case CollectiveKind::kReduce:
      reduce_into(runtime, stream, call, peers.input, 0, {peers.output[spec.root]}, spec.count);
      return;
    case CollectiveKind::kReduceScatter:
      for (int r = 0; r < n; ++r) {
        const collectives::Block& block = spec.blocks[r];
        std::vector<std::byte*> inputs;
        for (std::byte* p : peers.input) inputs.push_back(p + block.offset * element);
        reduce_into(runtime, stream, call, inputs, 0, {peers.output[r]}, block.count);
      }
      return;
    case CollectiveKind::kBroadcast:
      for (int r = 0; r < n; ++r) {
        if (r != spec.root && spec.count > 0) {
          runtime.copy(peers.output[r], peers.input[spec.root], spec.count * element, stream);
        }
      }
      return;
    case CollectiveKind::kAllGather:
      for (int from = 0; from < n; ++from) {
        const collectives::Block& block = spec.blocks[from];
        if (block.count == 0) continue;
        for (int r = 0; r < n; ++r) {
          std::byte* to = peers.output[r] + block.offset * element;
          if (to != peers.input[from]) {
            runtime.copy(to, peers.input[from], block.count * element, stream);
          }
        }
      }
      return;
    default:
      throw Error(ErrorCode::kInternal, std::string(call.op) + " has no CUDA IPC algorithm");
  }
}

// This rank's share of the call, when the ranks' buffers are on different devices:
// each device works on its share at the same time.
void run_share(const DeviceCall& call, const PeerBuffers& peers, DeviceRuntime& runtime,
               Stream stream) {
  const collectives::CollectiveSpec& spec = call.spec;
  const int n = spec.size;
  const int me = spec.rank;
  const uint64_t element = spec.element_bytes();
  switch (spec.kind) {
    case CollectiveKind::kAllReduce: {
      auto [begin, end] = slice_of(spec.count, me, n);
      reduce_into(runtime, stream, call, peers.input, begin, peers.output, end - begin);
      return;
    }
    case CollectiveKind::kReduce: {
      auto [begin, end] = slice_of(spec.count, me, n);
      reduce_into(runtime, stream, call, peers.input, begin, {peers.output[spec.root]},
                  end - begin);
      return;
    }
    case CollectiveKind::kReduceScatter: {
      const collectives::Block& block = spec.blocks[me];
      // Every input's block `me`, into this rank's output (which may be that block of
      // its own input): so the inputs are offset by the block, the output is not.
      std::vector<std::byte*> inputs;
      for (std::byte* p : peers.input) inputs.push_back(p + block.offset * element);
      reduce_into(runtime, stream, call, inputs, 0, {peers.output[me]}, block.count);
      return;
    }
    case CollectiveKind::kBroadcast:
      if (me != spec.root && spec.count > 0) {
        runtime.copy(peers.output[me], peers.input[spec.root], spec.count * element, stream);
      }
      return;
    case CollectiveKind::kAllGather: {
      const collectives::Block& mine = spec.blocks[me];
      if (mine.count == 0) return;
      for (int r = 0; r < n; ++r) {
        std::byte* to = peers.output[r] + mine.offset * element;
        if (to != peers.input[me]) runtime.copy(to, peers.input[me], mine.count * element, stream);
      }
      return;
    }
    default:
      throw Error(ErrorCode::kInternal, std::string(call.op) + " has no CUDA IPC algorithm");
  }
}

}  // namespace

bool ipc_serves(const DeviceCall& call) {
  switch (call.spec.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduce:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kAllGather:
      return true;
    default:
      return false;
  }
}

bool run_over_ipc(const DeviceCall& call, const runtime::HostStep& host,
                  DeviceWorkspace& workspace) {
  DeviceRuntime& runtime = workspace.runtime();
  const int n = call.spec.size;
  // The inputs must be ready before the record says so: a peer may read them as soon
  // as it has the records.
  state_of(call).ready->wait();
  ExportRecord mine = local_record(call, runtime);
  std::vector<ExportRecord> records(n);

  DeviceCall exchange = runtime::make_step(call, CollectiveKind::kAllGather, DType::kUInt8);
  exchange.spec.blocks.resize(n);
  for (int r = 0; r < n; ++r) exchange.spec.blocks[r] = {r * sizeof(ExportRecord), sizeof mine};
  exchange.input = Tensor(&mine, sizeof mine, DType::kUInt8);
  exchange.output = Tensor(records.data(), n * sizeof mine, DType::kUInt8);
  host(exchange);
  bool one_device = true;
  for (const ExportRecord& record : records) {
    if (!record.usable) return false;
    one_device = one_device && record.device == records[0].device;
  }
  // On one device, the root (rank 0 where there is none) works for all.
  const bool rooted =
      call.spec.kind == CollectiveKind::kBroadcast || call.spec.kind == CollectiveKind::kReduce;
  const int worker = rooted ? call.spec.root : 0;

  Stream stream = workspace.stream(call_device(call));
  std::exception_ptr failure;
  try {
    if (!one_device) {
      PeerBuffers peers = open_peers(call, records, workspace.ipc_cache());
      run_share(call, peers, runtime, stream);
      runtime.synchronize_stream(stream);
    } else if (call.spec.rank == worker) {
      PeerBuffers peers = open_peers(call, records, workspace.ipc_cache());
      run_alone(call, peers, runtime, stream);
      runtime.synchronize_stream(stream);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // Even after a local failure the others must not leave while this rank may still be
  // touching their memory, nor this one while they touch its: all meet first, and
  // learn whether any rank failed its part (then every rank's output is incomplete,
  // and every rank fails).
  uint32_t failed_rank = failure ? static_cast<uint32_t>(call.spec.rank) + 1 : 0;
  DeviceCall outcome = runtime::make_step(call, CollectiveKind::kAllReduce, DType::kUInt32);
  outcome.spec.op = ReduceOp::kMax;
  outcome.spec.count = 1;
  outcome.spec.input_in_output = 0;
  outcome.input = outcome.output = Tensor(&failed_rank, 1, DType::kUInt32);
  host(outcome);
  if (failure) std::rethrow_exception(failure);
  if (failed_rank != 0) {
    throw Error(ErrorCode::kPeer, "rank " + std::to_string(failed_rank - 1) +
                                      " could not do its part over CUDA IPC (its own error says "
                                      "why): the results are incomplete");
  }
  return true;
}

}  // namespace weft::cuda

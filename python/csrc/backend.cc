#include "backend.h"

#include <c10/util/Exception.h>
#include <weft/collectives.h>
#include <weft/error.h>
#include <weft/p2p.h>
#include <weft/process_group.h>

#include <numeric>

#include "torch_store.h"
#include "watcher.h"
#include "work.h"

namespace weft::torch_backend {
namespace {

using c10d::OpType;
using Tensors = std::vector<at::Tensor>;

// Runs a weft call, turning weft's errors into the exceptions torch users catch: bad
// arguments are a ValueError, every other failure a DistBackendError (a RuntimeError).
template <typename Call>
auto translated(Call call) {
  try {
    return call();
  } catch (const weft::InvalidArgument& e) {
    C10_THROW_ERROR(ValueError, e.what());
  } catch (const weft::Error& e) {
    std::rethrow_exception(backend_error(e.what()));
  }
}

// What an operation's staging holds for weft while it runs.
struct Keep {
  std::vector<Staged> staged;
  std::vector<at::Tensor> tensors;
  std::vector<std::vector<uint64_t>> counts;
};

const at::Tensor& single(const Tensors& tensors, const Caller& caller) {
  if (tensors.size() != 1) {
    refuse(caller, "takes one tensor per process, not " + std::to_string(tensors.size()));
  }
  return tensors[0];
}

// PREMUL_SUM's factor, applied to `tensor` in place before the sum.
void premultiply(at::Tensor& tensor, const c10d::ReduceOp& op) {
  if (op != c10d::ReduceOp::PREMUL_SUM) return;
  auto* supplement = dynamic_cast<c10d::PreMulSumSupplement*>(op.supplement_.get());
  TORCH_CHECK(supplement != nullptr, "weft: PREMUL_SUM without its factor");
  if (supplement->tensor_factor.defined()) {
    tensor.mul_(supplement->tensor_factor);
  } else {
    tensor.mul_(supplement->double_factor);
  }
}

// weft's units per torch element of `staged`: 1, or 2 for a complex sum, or the
// element's bytes where weft moves it as bytes.
uint64_t units_per_element(const Staged& staged) {
  int64_t n = staged.original.numel();
  return n == 0 ? 1 : staged.view.count() / static_cast<uint64_t>(n);
}

// A flat tensor of `n` rows shaped like `like`, for the list forms.
at::Tensor rows_like(const at::Tensor& like, int n) {
  std::vector<int64_t> shape{n};
  for (int64_t d : like.sizes()) shape.push_back(d);
  return at::empty(shape, like.options().memory_format(at::MemoryFormat::Contiguous));
}

}  // namespace

WeftBackend::WeftBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                         std::chrono::milliseconds timeout, std::vector<int64_t> global_ranks,
                         const std::string& group_name)
    : Backend(rank, size),
      timeout_(timeout),
      collectives_in_flight_(std::make_shared<std::atomic<int>>(0)) {
  translated([&] {
    if (!weft::is_initialized()) {
      // The first group joins the job; its ranks are weft's world ranks from now on.
      weft::init_process_group(std::make_shared<TorchStore>(store), size, rank, "auto", timeout);
      joined_job_ = true;
      if (!global_ranks.empty()) {
        for (size_t i = 0; i < global_ranks.size(); ++i) {
          if (global_ranks[i] != static_cast<int64_t>(i)) {
            weft::destroy_process_group();
            joined_job_ = false;
            throw weft::InvalidArgument(
                "weft's first group in a process must be torch's default group (global ranks "
                "0..n-1 in order); create the default group with backend \"weft\"");
          }
        }
      }
      return 0;
    }
    if (global_ranks.empty()) {
      throw weft::InvalidArgument("weft (rank " + std::to_string(rank) +
                                  "): a second default group in one process; call "
                                  "destroy_process_group before init_process_group");
    }
    // A subgroup: its members alone form it, told apart from other groups being formed
    // at the same time by the group's name.
    std::vector<int> members;
    for (int64_t r : global_ranks) {
      if (r >= weft::get_world_size()) {
        throw weft::InvalidArgument("weft: group " + group_name + " names global rank " +
                                    std::to_string(r) + ", outside weft's job of " +
                                    std::to_string(weft::get_world_size()) + " ranks");
      }
      members.push_back(static_cast<int>(r));
    }
    const int tag = static_cast<int>(std::hash<std::string>{}(group_name)&0x00ffffff);
    group_ = weft::subgroup(weft::Group(), members, tag, timeout);
    return 0;
  });
}

WeftBackend::~WeftBackend() {
  try {
    shutdown();
  } catch (...) {
    // A destructor reports nothing; shutdown() called directly does.
  }
}

void WeftBackend::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (joined_job_) {
    auto left = Watcher::instance().stop("weft: the process group was destroyed");
    if (weft::is_initialized())
      translated([] {
        weft::destroy_process_group();
        return 0;
      });
  } else if (weft::is_initialized()) {
    translated([&] {
      weft::destroy_group(group_);
      return 0;
    });
  }
}

void WeftBackend::abort() {
  if (weft::is_initialized()) weft::abort("torch.distributed aborted the process group");
}

std::chrono::milliseconds WeftBackend::timeout_of(std::chrono::milliseconds given) const {
  return given.count() >= 0 ? given : timeout_;
}

c10::intrusive_ptr<c10d::Work> WeftBackend::run(Operation op, bool async_op,
                                                std::chrono::milliseconds timeout) {
  if (!async_op && op.blocking && collectives_in_flight_->load() == 0) {
    translated([&] {
      op.blocking(timeout);
      return 0;
    });
    if (op.finish) op.finish();
    return WeftWork::done(rank_, op.type, op.title, std::move(op.outputs));
  }
  std::vector<weft::Request> requests = translated([&] { return op.start(); });
  auto work = c10::make_intrusive<WeftWork>(rank_, op.type, op.title, std::move(requests),
                                            std::move(op.outputs), std::move(op.keep),
                                            std::move(op.finish), timeout);
  if (work->collective()) {
    collectives_in_flight_->fetch_add(1);
    work->on_settled([in_flight = collectives_in_flight_] { in_flight->fetch_sub(1); });
  }
  Watcher::instance().add(work);
  return work;
}

WeftBackend::Operation WeftBackend::combined(c10d::OpType type, const char* title,
                                             std::vector<Operation> parts) {
  auto shared = std::make_shared<std::vector<Operation>>(std::move(parts));
  Operation op{type, title, {}, shared, nullptr, nullptr, nullptr};
  for (const Operation& p : *shared)
    op.outputs.insert(op.outputs.end(), p.outputs.begin(), p.outputs.end());
  op.finish = [shared] {
    for (const Operation& p : *shared) {
      if (p.finish) p.finish();
    }
  };
  op.blocking = [shared](Timeout t) {
    for (const Operation& p : *shared) p.blocking(t);
  };
  op.start = [shared] {
    std::vector<weft::Request> requests;
    for (const Operation& p : *shared) {
      for (weft::Request& r : p.start()) requests.push_back(std::move(r));
    }
    return requests;
  };
  return op;
}

// ---- reductions ----

c10::intrusive_ptr<c10d::Work> WeftBackend::allreduce(Tensors& tensors,
                                                      const c10d::AllreduceOptions& opts) {
  Caller who = caller("allreduce");
  at::Tensor tensor = single(tensors, who);
  auto keep = std::make_shared<Keep>();
  Staged s = stage_for_reducing(tensor, opts.reduceOp, who, "tensor");
  premultiply(s.contiguous, opts.reduceOp);
  weft::ReduceOp op = weft_op(opts.reduceOp, tensor.scalar_type(), who);
  keep->staged.push_back(s);
  weft::Group g = group_;
  return run({OpType::ALLREDUCE,
              "allreduce",
              {tensor},
              keep,
              [s] { s.copy_back(); },
              [s, op, g](Timeout t) { weft::all_reduce(s.view, op, g, t); },
              [s, op, g] { return std::vector<weft::Request>{weft::iall_reduce(s.view, op, g)}; }},
             opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::allreduce_coalesced(
    Tensors& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  Caller who = caller("allreduce_coalesced");
  if (tensors.empty()) refuse(who, "no tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].scalar_type() != tensors[0].scalar_type()) {
      refuse(who, "tensors[" + std::to_string(i) + "] has dtype " +
                      dtype_name(tensors[i].scalar_type()) + ", tensors[0] " +
                      dtype_name(tensors[0].scalar_type()) + ": one dtype per call");
    }
  }
  // One all_reduce over the tensors laid end to end.
  std::vector<at::Tensor> flat_parts;
  for (const at::Tensor& t : tensors) flat_parts.push_back(t.reshape(-1));
  at::Tensor flat = at::cat(flat_parts);
  Staged s = stage_for_reducing(flat, opts.reduceOp, who, "tensors");
  premultiply(s.contiguous, opts.reduceOp);
  weft::ReduceOp op = weft_op(opts.reduceOp, flat.scalar_type(), who);
  auto keep = std::make_shared<Keep>();
  keep->staged.push_back(s);
  Tensors outputs = tensors;
  auto finish = [flat, outputs] {
    int64_t offset = 0;
    for (const at::Tensor& t : outputs) {
      t.copy_(flat.narrow(0, offset, t.numel()).view_as(t));
      offset += t.numel();
    }
  };
  weft::Group g = group_;
  return run({OpType::ALLREDUCE_COALESCED, "allreduce_coalesced", outputs, keep, finish,
              [s, op, g](Timeout t) { weft::all_reduce(s.view, op, g, t); },
              [s, op, g] { return std::vector<weft::Request>{weft::iall_reduce(s.view, op, g)}; }},
             opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::reduce(Tensors& tensors,
                                                   const c10d::ReduceOptions& opts) {
  Caller who = caller("reduce");
  at::Tensor tensor = single(tensors, who);
  if (opts.rootTensor != 0) refuse(who, "rootTensor must be 0");
  Staged s = stage_for_reducing(tensor, opts.reduceOp, who, "tensor");
  const bool root = opts.rootRank == rank_;
  if (opts.reduceOp == c10d::ReduceOp::PREMUL_SUM) {
    // The input is scaled in a copy: a non-root rank's tensor stays as it was.
    if (s.contiguous.is_same(tensor) && !root) s.use_copy();
    premultiply(s.contiguous, opts.reduceOp);
  }
  weft::ReduceOp op = weft_op(opts.reduceOp, tensor.scalar_type(), who);
  auto keep = std::make_shared<Keep>();
  keep->staged.push_back(s);
  weft::GroupRank dst{static_cast<int>(opts.rootRank)};
  weft::Group g = group_;
  return run(
      {OpType::REDUCE,
       "reduce",
       {tensor},
       keep,
       [s, root] {
         if (root) s.copy_back();
       },
       [s, op, dst, g](Timeout t) { weft::reduce(s.view, dst, op, g, t); },
       [s, op, dst, g] { return std::vector<weft::Request>{weft::ireduce(s.view, dst, op, g)}; }},
      opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::reduce_scatter(Tensors& outputs,
                                                           std::vector<Tensors>& inputs,
                                                           const c10d::ReduceScatterOptions& opts) {
  Caller who = caller("reduce_scatter");
  at::Tensor output = single(outputs, who);
  if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(size())) {
    refuse(who, "takes one list of " + std::to_string(size()) + " input tensors");
  }
  check_same_shape(inputs[0], output, who, "input_list");
  at::Tensor stacked = at::stack(inputs[0]);
  at::Tensor out = output;
  return _reduce_scatter_base(out, stacked, opts);
}

c10::intrusive_ptr<c10d::Work> WeftBackend::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  return run(reduce_scatter_operation(output, input, opts.reduceOp), opts.asyncOp,
             timeout_of(opts.timeout));
}

WeftBackend::Operation WeftBackend::reduce_scatter_operation(const at::Tensor& output,
                                                             const at::Tensor& input,
                                                             const c10d::ReduceOp& reduce_op) {
  Caller who = caller("reduce_scatter");
  if (input.scalar_type() != output.scalar_type() || input.numel() != output.numel() * size()) {
    refuse(who, "the input has " + std::to_string(input.numel()) + " elements of " +
                    dtype_name(input.scalar_type()) + "; it must have group size (" +
                    std::to_string(size()) + ") times the output's " +
                    std::to_string(output.numel()) + " of " + dtype_name(output.scalar_type()));
  }
  Staged in = stage_for_reducing(input, reduce_op, who, "input");
  if (reduce_op == c10d::ReduceOp::PREMUL_SUM) {
    in.use_copy();  // the caller's input stays unscaled
    premultiply(in.contiguous, reduce_op);
  }
  Staged out = stage_output(output, who, "output", true, reduce_op);
  weft::ReduceOp op = weft_op(reduce_op, input.scalar_type(), who);
  auto keep = std::make_shared<Keep>();
  keep->staged = {in, out};
  weft::Group g = group_;
  return {OpType::_REDUCE_SCATTER_BASE,
          "reduce_scatter",
          {output},
          keep,
          [out] { out.copy_back(); },
          [in, out, op, g](Timeout t) { weft::reduce_scatter(in.view, out.view, op, g, t); },
          [in, out, op, g] {
            return std::vector<weft::Request>{weft::ireduce_scatter(in.view, out.view, op, g)};
          }};
}

c10::intrusive_ptr<c10d::Work> WeftBackend::reduce_scatter_tensor_coalesced(
    Tensors& outputs, Tensors& inputs, const c10d::ReduceScatterOptions& opts) {
  Caller who = caller("reduce_scatter_tensor_coalesced");
  if (outputs.size() != inputs.size()) {
    refuse(who, std::to_string(outputs.size()) + " outputs for " + std::to_string(inputs.size()) +
                    " inputs");
  }
  std::vector<Operation> parts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    parts.push_back(reduce_scatter_operation(outputs[i], inputs[i], opts.reduceOp));
  }
  return run(combined(OpType::COALESCED, "reduce_scatter_tensor_coalesced", std::move(parts)),
             opts.asyncOp, timeout_of(opts.timeout));
}

// ---- data movement ----

c10::intrusive_ptr<c10d::Work> WeftBackend::broadcast(Tensors& tensors,
                                                      const c10d::BroadcastOptions& opts) {
  Caller who = caller("broadcast");
  at::Tensor tensor = single(tensors, who);
  if (opts.rootTensor != 0) refuse(who, "rootTensor must be 0");
  Staged s = stage_for_moving(tensor, who, "tensor");
  auto keep = std::make_shared<Keep>();
  keep->staged.push_back(s);
  weft::GroupRank root{static_cast<int>(opts.rootRank)};
  weft::Group g = group_;
  return run(
      {OpType::BROADCAST,
       "broadcast",
       {tensor},
       keep,
       [s] { s.copy_back(); },
       [s, root, g](Timeout t) { weft::broadcast(s.view, root, g, t); },
       [s, root, g] { return std::vector<weft::Request>{weft::ibroadcast(s.view, root, g)}; }},
      opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                            const c10d::AllgatherOptions& opts) {
  return run(all_gather_operation(output, input), opts.asyncOp, timeout_of(opts.timeout));
}

WeftBackend::Operation WeftBackend::all_gather_operation(const at::Tensor& output,
                                                         const at::Tensor& input) {
  Caller who = caller("all_gather");
  if (input.scalar_type() != output.scalar_type() || output.numel() != input.numel() * size()) {
    refuse(who, "the output has " + std::to_string(output.numel()) + " elements of " +
                    dtype_name(output.scalar_type()) + "; it must have group size (" +
                    std::to_string(size()) + ") times the input's " +
                    std::to_string(input.numel()) + " of " + dtype_name(input.scalar_type()));
  }
  Staged in = stage_for_moving(input, who, "input");
  Staged out = stage_output(output, who, "output", false, c10d::ReduceOp::SUM);
  auto keep = std::make_shared<Keep>();
  keep->staged = {in, out};
  weft::Group g = group_;
  return {
      OpType::_ALLGATHER_BASE,
      "all_gather",
      {output},
      keep,
      [out] { out.copy_back(); },
      [in, out, g](Timeout t) { weft::all_gather(in.view, out.view, g, t); },
      [in, out, g] { return std::vector<weft::Request>{weft::iall_gather(in.view, out.view, g)}; }};
}

c10::intrusive_ptr<c10d::Work> WeftBackend::allgather(std::vector<Tensors>& outputs,
                                                      Tensors& inputs,
                                                      const c10d::AllgatherOptions& opts) {
  Caller who = caller("all_gather");
  at::Tensor input = single(inputs, who);
  if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(size())) {
    refuse(who, "takes one list of " + std::to_string(size()) + " output tensors");
  }
  check_same_shape(outputs[0], input, who, "tensor_list");
  at::Tensor flat = rows_like(input, size());
  Tensors list = outputs[0];
  Staged in = stage_for_moving(input, who, "input");
  Staged out = stage_output(flat, who, "output", false, c10d::ReduceOp::SUM);
  auto keep = std::make_shared<Keep>();
  keep->staged = {in, out};
  weft::Group g = group_;
  auto finish = [flat, list] {
    for (size_t i = 0; i < list.size(); ++i) list[i].copy_(flat[static_cast<int64_t>(i)]);
  };
  return run({OpType::ALLGATHER, "all_gather", list, keep, finish,
              [in, out, g](Timeout t) { weft::all_gather(in.view, out.view, g, t); },
              [in, out, g] {
                return std::vector<weft::Request>{weft::iall_gather(in.view, out.view, g)};
              }},
             opts.asyncOp, timeout_of(opts.timeout));
}

// all_gather_coalesced: output_lists[r][j] is rank r's inputs[j]. One all_gather of
// the inputs laid end to end (as bytes, so that they may differ in dtype).
c10::intrusive_ptr<c10d::Work> WeftBackend::allgather_coalesced(
    std::vector<Tensors>& output_lists, Tensors& inputs, const c10d::AllgatherOptions& opts) {
  Caller who = caller("all_gather_coalesced");
  if (output_lists.size() != static_cast<size_t>(size())) {
    refuse(who, "takes one output list per rank (" + std::to_string(size()) + "), not " +
                    std::to_string(output_lists.size()));
  }
  for (size_t r = 0; r < output_lists.size(); ++r) {
    if (output_lists[r].size() != inputs.size()) {
      refuse(who, "output list " + std::to_string(r) + " has " +
                      std::to_string(output_lists[r].size()) + " tensors for " +
                      std::to_string(inputs.size()) + " inputs");
    }
    check_same_shapes(output_lists[r], inputs, who, "output list");
  }
  std::vector<at::Tensor> bytes;
  for (const at::Tensor& t : inputs) {
    check_device(t, who, "input");
    bytes.push_back(t.contiguous().reshape(-1).view(at::kByte));
  }
  at::Tensor flat_in = bytes.empty() ? at::empty({0}, at::kByte) : at::cat(bytes);
  at::Tensor flat_out = at::empty({size(), flat_in.numel()}, flat_in.options());
  Operation op = all_gather_operation(flat_out, flat_in);
  op.type = OpType::ALLGATHER_COALESCED;
  op.title = "all_gather_coalesced";
  std::vector<Tensors> lists = output_lists;
  op.outputs.clear();
  for (const Tensors& list : lists) op.outputs.insert(op.outputs.end(), list.begin(), list.end());
  op.finish = [flat_out, lists] {
    for (size_t r = 0; r < lists.size(); ++r) {
      int64_t offset = 0;
      for (const at::Tensor& t : lists[r]) {
        int64_t n = t.numel() * t.element_size();
        t.copy_(flat_out[static_cast<int64_t>(r)]
                    .narrow(0, offset, n)
                    .view(t.scalar_type())
                    .view_as(t));
        offset += n;
      }
    }
  };
  return run(std::move(op), opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::allgather_into_tensor_coalesced(
    Tensors& outputs, Tensors& inputs, const c10d::AllgatherOptions& opts) {
  Caller who = caller("allgather_into_tensor_coalesced");
  if (outputs.size() != inputs.size()) {
    refuse(who, std::to_string(outputs.size()) + " outputs for " + std::to_string(inputs.size()) +
                    " inputs");
  }
  std::vector<Operation> parts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    parts.push_back(all_gather_operation(outputs[i], inputs[i]));
  }
  return run(combined(OpType::COALESCED, "allgather_into_tensor_coalesced", std::move(parts)),
             opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::gather(std::vector<Tensors>& outputs, Tensors& inputs,
                                                   const c10d::GatherOptions& opts) {
  Caller who = caller("gather");
  at::Tensor input = single(inputs, who);
  const bool root = opts.rootRank == rank_;
  Tensors list;
  if (root) {
    if (outputs.size() != 1 || outputs[0].size() != static_cast<size_t>(size())) {
      refuse(who, "the root takes one list of " + std::to_string(size()) + " output tensors");
    }
    check_same_shape(outputs[0], input, who, "gather_list");
    list = outputs[0];
  } else if (!outputs.empty() && !outputs[0].empty()) {
    refuse(who, "gather_list is given on a rank that is not the root");
  }
  Staged in = stage_for_moving(input, who, "input");
  at::Tensor flat = root ? rows_like(input, size()) : at::Tensor();
  Staged out = root ? stage_output(flat, who, "output", false, c10d::ReduceOp::SUM) : Staged{};
  auto keep = std::make_shared<Keep>();
  keep->staged = {in, out};
  weft::GroupRank dst{static_cast<int>(opts.rootRank)};
  weft::Group g = group_;
  auto finish = [flat, list] {
    for (size_t i = 0; i < list.size(); ++i) list[i].copy_(flat[static_cast<int64_t>(i)]);
  };
  return run({OpType::GATHER, "gather", list, keep, finish,
              [in, out, dst, g](Timeout t) { weft::gather(in.view, out.view, dst, g, t); },
              [in, out, dst, g] {
                return std::vector<weft::Request>{weft::igather(in.view, out.view, dst, g)};
              }},
             opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::scatter(Tensors& outputs, std::vector<Tensors>& inputs,
                                                    const c10d::ScatterOptions& opts) {
  Caller who = caller("scatter");
  at::Tensor output = single(outputs, who);
  const bool root = opts.rootRank == rank_;
  at::Tensor stacked;
  if (root) {
    if (inputs.size() != 1 || inputs[0].size() != static_cast<size_t>(size())) {
      refuse(who, "the root takes one list of " + std::to_string(size()) + " input tensors");
    }
    check_same_shape(inputs[0], output, who, "scatter_list");
    stacked = at::stack(inputs[0]);
  } else if (!inputs.empty() && !inputs[0].empty()) {
    refuse(who, "scatter_list is given on a rank that is not the root");
  }
  Staged in = root ? stage_for_moving(stacked, who, "scatter_list") : Staged{};
  Staged out = stage_output(output, who, "output", false, c10d::ReduceOp::SUM);
  auto keep = std::make_shared<Keep>();
  keep->staged = {in, out};
  weft::GroupRank src{static_cast<int>(opts.rootRank)};
  weft::Group g = group_;
  return run({OpType::SCATTER,
              "scatter",
              {output},
              keep,
              [out] { out.copy_back(); },
              [in, out, src, g](Timeout t) { weft::scatter(in.view, out.view, src, g, t); },
              [in, out, src, g] {
                return std::vector<weft::Request>{weft::iscatter(in.view, out.view, src, g)};
              }},
             opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                          std::vector<int64_t>& output_splits,
                                                          std::vector<int64_t>& input_splits,
                                                          const c10d::AllToAllOptions& opts) {
  return run(all_to_all_operation(output, input, output_splits, input_splits), opts.asyncOp,
             timeout_of(opts.timeout));
}

WeftBackend::Operation WeftBackend::all_to_all_operation(const at::Tensor& output,
                                                         const at::Tensor& input,
                                                         const std::vector<int64_t>& output_splits,
                                                         const std::vector<int64_t>& input_splits) {
  Caller who = caller("all_to_all");
  if (input.scalar_type() != output.scalar_type()) {
    refuse(who, "input and output dtypes differ (" + dtype_name(input.scalar_type()) + ", " +
                    dtype_name(output.scalar_type()) + ")");
  }
  Staged in = stage_for_moving(input, who, "input");
  Staged out = stage_output(output, who, "output", false, c10d::ReduceOp::SUM);
  const uint64_t unit = units_per_element(in);
  // Rows along the first dimension, as c10d counts its splits.
  auto counts_of = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* name) {
    const int n = size();
    int64_t rows = t.dim() == 0 ? 1 : t.size(0);
    int64_t row = rows == 0 ? 0 : t.numel() / rows;
    std::vector<uint64_t> counts(static_cast<size_t>(n));
    if (splits.empty()) {
      if (rows % n != 0) {
        refuse(who, std::string(name) + "'s first dimension (" + std::to_string(rows) +
                        ") does not divide by the group size " + std::to_string(n));
      }
      for (auto& c : counts) c = static_cast<uint64_t>(rows / n * row) * unit;
    } else {
      if (splits.size() != static_cast<size_t>(n)) {
        refuse(who, std::string(name) + " splits have " + std::to_string(splits.size()) +
                        " entries for a group of " + std::to_string(n));
      }
      int64_t total = 0;
      for (int i = 0; i < n; ++i) {
        if (splits[i] < 0)
          refuse(who, std::string(name) + " split " + std::to_string(i) + " is negative");
        counts[i] = static_cast<uint64_t>(splits[i] * row) * unit;
        total += splits[i];
      }
      if (total != rows) {
        refuse(who, std::string(name) + " splits add up to " + std::to_string(total) +
                        " rows, but it has " + std::to_string(rows));
      }
    }
    return counts;
  };
  auto keep = std::make_shared<Keep>();
  keep->counts.push_back(counts_of(input, input_splits, "input"));
  keep->counts.push_back(counts_of(output, output_splits, "output"));
  auto displs = [](const std::vector<uint64_t>& counts) {
    std::vector<uint64_t> d(counts.size());
    std::exclusive_scan(counts.begin(), counts.end(), d.begin(), uint64_t{0});
    return d;
  };
  keep->counts.push_back(displs(keep->counts[0]));
  keep->counts.push_back(displs(keep->counts[1]));
  keep->staged = {in, out};
  const std::vector<std::vector<uint64_t>>* c = &keep->counts;  // lives as long as `keep`
  weft::Group g = group_;
  return {OpType::ALLTOALL_BASE,
          "all_to_all",
          {output},
          keep,
          [out] { out.copy_back(); },
          [in, out, c, g](Timeout t) {
            weft::all_to_allv(in.view, (*c)[0], (*c)[2], out.view, (*c)[1], (*c)[3], g, t);
          },
          [in, out, c, g] {
            return std::vector<weft::Request>{
                weft::iall_to_allv(in.view, (*c)[0], (*c)[2], out.view, (*c)[1], (*c)[3], g)};
          }};
}

c10::intrusive_ptr<c10d::Work> WeftBackend::alltoall(Tensors& outputs, Tensors& inputs,
                                                     const c10d::AllToAllOptions& opts) {
  Caller who = caller("all_to_all");
  const size_t n = static_cast<size_t>(size());
  if (outputs.size() != n || inputs.size() != n) {
    refuse(who, "takes " + std::to_string(n) + " input and output tensors, not " +
                    std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  }
  // The lists laid end to end, one row per element, split by each tensor's size.
  std::vector<at::Tensor> in_parts, out_parts;
  std::vector<int64_t> in_splits, out_splits;
  for (size_t i = 0; i < n; ++i) {
    in_parts.push_back(inputs[i].reshape(-1));
    in_splits.push_back(inputs[i].numel());
    out_splits.push_back(outputs[i].numel());
  }
  at::Tensor flat_in = at::cat(in_parts);
  int64_t out_total = std::accumulate(out_splits.begin(), out_splits.end(), int64_t{0});
  at::Tensor flat_out = at::empty({out_total}, outputs[0].options());
  Tensors list = outputs;
  Operation op = all_to_all_operation(flat_out, flat_in, out_splits, in_splits);
  op.type = OpType::ALLTOALL;
  op.outputs = list;
  op.finish = [flat_out, list] {
    int64_t offset = 0;
    for (const at::Tensor& t : list) {
      t.copy_(flat_out.narrow(0, offset, t.numel()).view_as(t));
      offset += t.numel();
    }
  };
  return run(std::move(op), opts.asyncOp, timeout_of(opts.timeout));
}

c10::intrusive_ptr<c10d::Work> WeftBackend::barrier(const c10d::BarrierOptions& opts) {
  weft::Group g = group_;
  return run({OpType::BARRIER,
              "barrier",
              {},
              nullptr,
              nullptr,
              [g](Timeout t) { weft::barrier(g, t); },
              [g] { return std::vector<weft::Request>{weft::ibarrier(g)}; }},
             opts.asyncOp, timeout_of(opts.timeout));
}

// ---- point to point ----

c10::intrusive_ptr<c10d::Work> WeftBackend::send(Tensors& tensors, int dst, int tag) {
  Caller who = caller("send");
  Staged s = stage_for_moving(single(tensors, who), who, "tensor");
  auto keep = std::make_shared<Keep>();
  keep->staged.push_back(s);
  weft::Group g = group_;
  return run(
      {OpType::SEND,
       "send",
       {},
       keep,
       nullptr,
       nullptr,
       [s, dst, tag, g] {
         return std::vector<weft::Request>{weft::isend(s.view, weft::GroupRank{dst}, tag, g)};
       }},
      true, timeout_);
}

c10::intrusive_ptr<c10d::Work> WeftBackend::recv(Tensors& tensors, int src, int tag) {
  Caller who = caller("recv");
  at::Tensor tensor = single(tensors, who);
  Staged s = stage_output(tensor, who, "tensor", false, c10d::ReduceOp::SUM);
  auto keep = std::make_shared<Keep>();
  keep->staged.push_back(s);
  weft::Group g = group_;
  return run(
      {OpType::RECV,
       "recv",
       {tensor},
       keep,
       [s] { s.copy_back(); },
       nullptr,
       [s, src, tag, g] {
         return std::vector<weft::Request>{weft::irecv(s.view, weft::GroupRank{src}, tag, g)};
       }},
      true, timeout_);
}

c10::intrusive_ptr<c10d::Work> WeftBackend::recvAnysource(Tensors& tensors, int tag) {
  return recv(tensors, weft::kAnySource, tag);
}

}  // namespace weft::torch_backend

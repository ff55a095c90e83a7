// The public collectives: argument checks and the CollectiveSpec of each call. Every
// collective is built by one make_* function shared by its blocking and asynchronous
// forms.
#include "weft/collectives.h"

#include <cstring>
#include <functional>

#include "runtime/api/collective_call.h"
#include "runtime/device_interface.h"

namespace weft {
namespace {

using collectives::Block;
using collectives::CollectiveKind;
using runtime::Checker;
using runtime::CollectiveCall;
using runtime::RankArgument;

std::vector<Block> uniform_blocks(uint64_t count, int n) {
  std::vector<Block> blocks = runtime::block_vector();
  blocks.resize(n);
  for (int r = 0; r < n; ++r) blocks[r] = {r * count, count};
  return blocks;
}

bool overlap(const Tensor& a, const Tensor& b) {
  auto* x = static_cast<const std::byte*>(a.data());
  auto* y = static_cast<const std::byte*>(b.data());
  return a.bytes() > 0 && b.bytes() > 0 && x < y + b.bytes() && y < x + a.bytes();
}

// Where `inner` lies in `outer`, in elements, when it is exactly at element `allowed`
// (the in-place form); -1 when they do not overlap. Any other overlap is refused.
int64_t placement(const Checker& check, const Tensor& inner, const char* inner_name,
                  const Tensor& outer, const char* outer_name, uint64_t allowed) {
  if (inner.bytes() == 0 || outer.bytes() == 0) {
    return inner.data() == outer.data() && allowed == 0 ? 0 : -1;
  }
  if (!overlap(inner, outer)) return -1;
  const uint64_t at = allowed * dtype_size(outer.dtype());
  if (static_cast<const std::byte*>(inner.data()) ==
          static_cast<const std::byte*>(outer.data()) + at &&
      inner.dtype() == outer.dtype() && at + inner.bytes() <= outer.bytes()) {
    return static_cast<int64_t>(allowed);
  }
  check.fail(std::string(inner_name) + " and " + outer_name +
             " overlap, but not as the in-place form of this collective (" + inner_name +
             " at element " + std::to_string(allowed) + " of " + outer_name + ")");
}

// Blocks of a v-form from counts and optional displacements; each must fit `buffer`
// (when this rank has one: a non-root's counts of gatherv and scatterv describe the
// root's buffer).
std::vector<Block> variable_blocks(const Checker& check, Counts counts, Counts displs,
                                   const char* counts_name, const Tensor* buffer,
                                   const char* buffer_name) {
  if (counts.size() != static_cast<size_t>(check.size())) {
    check.fail(std::string(counts_name) + " has " + std::to_string(counts.size()) +
               " entries for a group of " + std::to_string(check.size()));
  }
  if (!displs.empty() && displs.size() != counts.size()) {
    check.fail("the displacements for " + std::string(counts_name) + " have " +
               std::to_string(displs.size()) + " entries for a group of " +
               std::to_string(check.size()) + " (give one per rank, or none)");
  }
  std::vector<Block> blocks = runtime::block_vector();
  blocks.resize(counts.size());
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    blocks[r] = {displs.empty() ? at : displs[r], counts[r]};
    at = check.sum(at, counts[r], counts_name);
    if (buffer && check.sum(blocks[r].offset, blocks[r].count, "a block's end") > buffer->count()) {
      check.fail("rank " + std::to_string(r) + "'s block (" + std::to_string(blocks[r].count) +
                 " elements at " + std::to_string(blocks[r].offset) + ") lies beyond the " +
                 std::to_string(buffer->count()) + " elements of " + buffer_name);
    }
  }
  return blocks;
}

CollectiveCall make_barrier(const Group& group) {
  Checker check("barrier", group);
  return runtime::make_call(check, "barrier", CollectiveKind::kBarrier, DType::kUInt8);
}

CollectiveCall make_broadcast(const Tensor& tensor, RankArgument root_rank, const Group& group) {
  Checker check("broadcast", group);
  check.tensor(tensor, "tensor");
  const int root = check.root(root_rank);
  CollectiveCall call =
      runtime::make_call(check, "broadcast", CollectiveKind::kBroadcast, tensor.dtype());
  call.spec.root = root;
  call.spec.count = tensor.count();
  call.input = call.output = tensor;
  call.spec.input_in_output = 0;
  return call;
}

CollectiveCall make_all_reduce(const Tensor& input, const Tensor& output, ReduceOp op,
                               const Group& group) {
  Checker check("all_reduce", group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  check.count(output, "output", input.count(), "the input's count");
  check.op_on(op, input.dtype());
  CollectiveCall call =
      runtime::make_call(check, "all_reduce", CollectiveKind::kAllReduce, input.dtype());
  call.spec.op = op;
  call.spec.count = input.count();
  call.spec.input_in_output = placement(check, input, "input", output, "output", 0);
  call.input = input;
  call.output = output;
  return call;
}

CollectiveCall make_reduce(const Tensor& input, const Tensor& output, RankArgument root_rank,
                           ReduceOp op, const Group& group) {
  Checker check("reduce", group);
  check.tensor(input, "input");
  const int root = check.root(root_rank);
  check.op_on(op, input.dtype());
  CollectiveCall call = runtime::make_call(check, "reduce", CollectiveKind::kReduce, input.dtype());
  call.spec.op = op;
  call.spec.root = root;
  call.spec.count = input.count();
  call.input = input;
  if (check.rank() == root) {
    check.tensor(output, "output");
    check.same_dtype(input, "input", output, "output");
    check.count(output, "output", input.count(), "the input's count");
    call.spec.input_in_output = placement(check, input, "input", output, "output", 0);
    call.output = output;
  }
  return call;
}

CollectiveCall make_all_gather(const Tensor& input, const Tensor& output, const Group& group) {
  Checker check("all_gather", group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  check.count(output, "output",
              check.product(input.count(), check.size(), "group size x the input's count"),
              "group size x the input's count");
  CollectiveCall call =
      runtime::make_call(check, "all_gather", CollectiveKind::kAllGather, input.dtype());
  call.spec.blocks = uniform_blocks(input.count(), check.size());
  call.spec.input_in_output =
      placement(check, input, "input", output, "output", input.count() * check.rank());
  call.input = input;
  call.output = output;
  return call;
}

CollectiveCall make_all_gatherv(const Tensor& input, const Tensor& output, Counts counts,
                                Counts displs, const Group& group) {
  Checker check("all_gatherv", group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  CollectiveCall call =
      runtime::make_call(check, "all_gatherv", CollectiveKind::kAllGather, input.dtype());
  call.spec.variable_counts = true;
  call.spec.blocks = variable_blocks(check, counts, displs, "counts", &output, "output");
  check.count(input, "input", counts[check.rank()], "counts[rank]");
  call.spec.input_in_output =
      placement(check, input, "input", output, "output", call.spec.blocks[check.rank()].offset);
  call.input = input;
  call.output = output;
  return call;
}

// The blocks of gather(v) and scatter(v). `own` is this rank's block (gather's input,
// scatter's output) and `whole` the root's buffer of every block. A gatherv or
// scatterv non-root may pass no counts (as MPI allows): it knows only its own block.
std::vector<Block> rooted_blocks(const Checker& check, const Tensor& own, const char* own_name,
                                 const Tensor& whole, const char* whole_name, Counts counts,
                                 Counts displs, bool variable, int root) {
  const bool at_root = check.rank() == root;
  if (at_root) {
    check.tensor(whole, whole_name);
    check.same_dtype(own, own_name, whole, whole_name);
  }
  if (!variable) {
    if (at_root) {
      check.count(whole, whole_name,
                  check.product(own.count(), check.size(), "group size x the block's count"),
                  std::strcmp(own_name, "input") == 0 ? "group size x the input's count"
                                                      : "group size x the output's count");
    }
    return uniform_blocks(own.count(), check.size());
  }
  if (at_root || !counts.empty()) {
    std::vector<Block> blocks =
        variable_blocks(check, counts, displs, "counts", at_root ? &whole : nullptr, whole_name);
    check.count(own, own_name, counts[check.rank()], "counts[rank]");
    return blocks;
  }
  std::vector<Block> blocks = runtime::block_vector();
  blocks.resize(check.size());
  blocks[check.rank()] = {0, own.count()};
  return blocks;
}

CollectiveCall make_gather(const char* op, const Tensor& input, const Tensor& output, Counts counts,
                           Counts displs, bool variable, RankArgument root_rank,
                           const Group& group) {
  Checker check(op, group);
  check.tensor(input, "input");
  const int root = check.root(root_rank);
  CollectiveCall call = runtime::make_call(check, op, CollectiveKind::kGather, input.dtype());
  call.spec.root = root;
  call.spec.variable_counts = variable;
  call.spec.blocks =
      rooted_blocks(check, input, "input", output, "output", counts, displs, variable, root);
  call.input = input;
  if (check.rank() == root) {
    call.output = output;
    call.spec.input_in_output =
        placement(check, input, "input", output, "output", call.spec.blocks[root].offset);
  }
  return call;
}

CollectiveCall make_scatter(const char* op, const Tensor& input, const Tensor& output,
                            Counts counts, Counts displs, bool variable, RankArgument root_rank,
                            const Group& group) {
  Checker check(op, group);
  check.tensor(output, "output");
  const int root = check.root(root_rank);
  CollectiveCall call = runtime::make_call(check, op, CollectiveKind::kScatter, output.dtype());
  call.spec.root = root;
  call.spec.variable_counts = variable;
  call.spec.blocks =
      rooted_blocks(check, output, "output", input, "input", counts, displs, variable, root);
  call.output = output;
  if (check.rank() == root) {
    call.input = input;
    call.spec.output_in_input =
        placement(check, output, "output", input, "input", call.spec.blocks[root].offset) >= 0;
  }
  return call;
}

// reduce_scatter (n equal parts of the output's count) and reduce_scatterv.
CollectiveCall make_reduce_scatter(const char* op_name, const Tensor& input, const Tensor& output,
                                   Counts counts, bool variable, ReduceOp op, const Group& group) {
  Checker check(op_name, group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  check.op_on(op, input.dtype());
  CollectiveCall call =
      runtime::make_call(check, op_name, CollectiveKind::kReduceScatter, input.dtype());
  call.spec.op = op;
  if (!variable) {
    check.count(input, "input",
                check.product(output.count(), check.size(), "group size x the output's count"),
                "group size x the output's count");
    call.spec.blocks = uniform_blocks(output.count(), check.size());
  } else {
    call.spec.variable_counts = true;
    call.spec.blocks = variable_blocks(check, counts, {}, "counts", &input, "input");
    const Block& last = call.spec.blocks.back();
    check.count(input, "input", last.offset + last.count, "the sum of counts");
    check.count(output, "output", counts[check.rank()], "counts[rank]");
  }
  call.spec.output_in_input = placement(check, output, "output", input, "input",
                                        call.spec.blocks[check.rank()].offset) >= 0;
  call.input = input;
  call.output = output;
  return call;
}

CollectiveCall make_all_to_all(const Tensor& input, const Tensor& output, const Group& group) {
  Checker check("all_to_all", group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  check.count(output, "output", input.count(), "the input's count");
  if (input.count() % check.size() != 0) {
    check.fail("input has " + std::to_string(input.count()) +
               " elements, not a multiple of the group size " + std::to_string(check.size()));
  }
  CollectiveCall call =
      runtime::make_call(check, "all_to_all", CollectiveKind::kAllToAll, input.dtype());
  call.spec.blocks = uniform_blocks(input.count() / check.size(), check.size());
  call.spec.recv_blocks = runtime::block_vector();
  call.spec.recv_blocks.assign(call.spec.blocks.begin(), call.spec.blocks.end());
  call.spec.input_in_output = placement(check, input, "input", output, "output", 0);
  call.input = input;
  call.output = output;
  return call;
}

CollectiveCall make_all_to_allv(const Tensor& input, Counts send_counts, Counts send_displs,
                                const Tensor& output, Counts recv_counts, Counts recv_displs,
                                const Group& group) {
  Checker check("all_to_allv", group);
  check.tensor(input, "input");
  check.tensor(output, "output");
  check.same_dtype(input, "input", output, "output");
  CollectiveCall call =
      runtime::make_call(check, "all_to_allv", CollectiveKind::kAllToAll, input.dtype());
  call.spec.variable_counts = true;
  call.spec.blocks =
      variable_blocks(check, send_counts, send_displs, "send_counts", &input, "input");
  call.spec.recv_blocks =
      variable_blocks(check, recv_counts, recv_displs, "recv_counts", &output, "output");
  if (overlap(input, output)) {
    check.fail("input and output overlap (all_to_allv has no in-place form)");
  }
  call.input = input;
  call.output = output;
  return call;
}

// The list forms of all_gather, gather and scatter: one tensor per member, in group-rank
// order, each of `like`'s dtype and count, in host memory.
void check_list(const Checker& check, std::span<const Tensor> list, const char* list_name,
                const Tensor& like, const char* like_name) {
  if (runtime::on_device(like)) {
    check.fail(std::string(like_name) + " is on a device; the list forms take host tensors");
  }
  if (list.size() != static_cast<size_t>(check.size())) {
    check.fail(std::string(list_name) + " has " + std::to_string(list.size()) +
               " tensors for a group of " + std::to_string(check.size()) +
               " (one per member, in group-rank order)");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string name = std::string(list_name) + "[" + std::to_string(i) + "]";
    check.tensor(list[i], name.c_str());
    if (runtime::on_device(list[i])) {
      check.fail(name + " is on a device; the list forms take host tensors");
    }
    check.same_dtype(list[i], name.c_str(), like, like_name);
    check.count(list[i], name.c_str(), like.count(), "one tensor's count");
  }
}

// The flat buffer a list form runs on: the list's tensors one after another.
struct Staging {
  std::shared_ptr<std::byte[]> bytes;
  Tensor whole;
};

Staging stage(const Checker& check, const Tensor& like) {
  const uint64_t count = check.product(like.count(), check.size(), "group size x the count");
  check.product(count, dtype_size(like.dtype()), "the list's bytes");
  Staging s{std::shared_ptr<std::byte[]>(new std::byte[count * dtype_size(like.dtype())]), {}};
  s.whole = Tensor(s.bytes.get(), count, like.dtype());
  return s;
}

// The call's finish step: copies the staging buffer's slices into `list`. The call owns
// the buffer (CollectiveCall::staging) and runs this step before it lets the buffer go.
std::function<void()> copy_out(std::span<const Tensor> list, const std::byte* bytes,
                               uint64_t slice) {
  return [list = std::vector<Tensor>(list.begin(), list.end()), bytes, slice] {
    for (size_t i = 0; i < list.size(); ++i) {
      if (slice > 0) std::memcpy(list[i].data(), bytes + i * slice, slice);
    }
  };
}

CollectiveCall make_all_gather_list(std::span<const Tensor> tensor_list, const Tensor& tensor,
                                    const Group& group) {
  Checker check("all_gather", group);
  check.tensor(tensor, "tensor");
  check_list(check, tensor_list, "tensor_list", tensor, "tensor");
  Staging staging = stage(check, tensor);
  CollectiveCall call = make_all_gather(tensor, staging.whole, group);
  call.finish = copy_out(tensor_list, staging.bytes.get(), tensor.bytes());
  call.staging = std::move(staging.bytes);
  return call;
}

CollectiveCall make_gather_list(const Tensor& tensor, RankArgument dst,
                                std::span<const Tensor> gather_list, const Group& group) {
  Checker check("gather", group);
  check.tensor(tensor, "tensor");
  const int root = check.peer(dst, "dst", false);
  const RankArgument at_root = runtime::group_rank(GroupRank{root});
  if (check.rank() != root) {
    return make_gather("gather", tensor, Tensor(), {}, {}, false, at_root, group);
  }
  check_list(check, gather_list, "gather_list", tensor, "tensor");
  Staging staging = stage(check, tensor);
  CollectiveCall call = make_gather("gather", tensor, staging.whole, {}, {}, false, at_root, group);
  call.finish = copy_out(gather_list, staging.bytes.get(), tensor.bytes());
  call.staging = std::move(staging.bytes);
  return call;
}

CollectiveCall make_scatter_list(const Tensor& tensor, RankArgument src,
                                 std::span<const Tensor> scatter_list, const Group& group) {
  Checker check("scatter", group);
  check.tensor(tensor, "tensor");
  const int root = check.peer(src, "src", false);
  const RankArgument at_root = runtime::group_rank(GroupRank{root});
  if (check.rank() != root) {
    return make_scatter("scatter", Tensor(), tensor, {}, {}, false, at_root, group);
  }
  check_list(check, scatter_list, "scatter_list", tensor, "tensor");
  Staging staging = stage(check, tensor);
  for (size_t i = 0; i < scatter_list.size(); ++i) {
    if (tensor.bytes() > 0) {
      std::memcpy(staging.bytes.get() + i * tensor.bytes(), scatter_list[i].data(), tensor.bytes());
    }
  }
  CollectiveCall call =
      make_scatter("scatter", staging.whole, tensor, {}, {}, false, at_root, group);
  call.staging = std::move(staging.bytes);
  return call;
}

// A process outside the group takes no part in its collectives, as in the original
// package: the call returns at once, doing nothing, and an asynchronous form returns a
// Request that has completed.
template <class Make>
void blocking(const char* op, const Group& group, Timeout timeout, Make make) {
  if (!runtime::takes_no_part(group, op)) runtime::run_blocking(make(), timeout);
}

template <class Make>
Request async(const char* op, const Group& group, Make make) {
  if (runtime::takes_no_part(group, op)) return runtime::completed_request(op);
  return runtime::run_async(make());
}

}  // namespace

using runtime::group_rank;
using runtime::world_rank;

void barrier(const Group& group, Timeout timeout) {
  blocking("barrier", group, timeout, [&] { return make_barrier(group); });
}
Request ibarrier(const Group& group) {
  return async("ibarrier", group, [&] { return make_barrier(group); });
}

void broadcast(const Tensor& tensor, int root, const Group& group, Timeout timeout) {
  blocking("broadcast", group, timeout,
           [&] { return make_broadcast(tensor, world_rank(root), group); });
}
void broadcast(const Tensor& tensor, GroupRank root, const Group& group, Timeout timeout) {
  blocking("broadcast", group, timeout,
           [&] { return make_broadcast(tensor, group_rank(root), group); });
}
Request ibroadcast(const Tensor& tensor, int root, const Group& group) {
  return async("ibroadcast", group,
               [&] { return make_broadcast(tensor, world_rank(root), group); });
}
Request ibroadcast(const Tensor& tensor, GroupRank root, const Group& group) {
  return async("ibroadcast", group,
               [&] { return make_broadcast(tensor, group_rank(root), group); });
}

void all_reduce(const Tensor& tensor, ReduceOp op, const Group& group, Timeout timeout) {
  blocking("all_reduce", group, timeout,
           [&] { return make_all_reduce(tensor, tensor, op, group); });
}
void all_reduce(const Tensor& input, const Tensor& output, ReduceOp op, const Group& group,
                Timeout timeout) {
  blocking("all_reduce", group, timeout, [&] { return make_all_reduce(input, output, op, group); });
}
Request iall_reduce(const Tensor& tensor, ReduceOp op, const Group& group) {
  return async("iall_reduce", group, [&] { return make_all_reduce(tensor, tensor, op, group); });
}
Request iall_reduce(const Tensor& input, const Tensor& output, ReduceOp op, const Group& group) {
  return async("iall_reduce", group, [&] { return make_all_reduce(input, output, op, group); });
}

void reduce(const Tensor& tensor, int root, ReduceOp op, const Group& group, Timeout timeout) {
  blocking("reduce", group, timeout,
           [&] { return make_reduce(tensor, tensor, world_rank(root), op, group); });
}
void reduce(const Tensor& tensor, GroupRank root, ReduceOp op, const Group& group,
            Timeout timeout) {
  blocking("reduce", group, timeout,
           [&] { return make_reduce(tensor, tensor, group_rank(root), op, group); });
}
void reduce(const Tensor& input, const Tensor& output, int root, ReduceOp op, const Group& group,
            Timeout timeout) {
  blocking("reduce", group, timeout,
           [&] { return make_reduce(input, output, world_rank(root), op, group); });
}
void reduce(const Tensor& input, const Tensor& output, GroupRank root, ReduceOp op,
            const Group& group, Timeout timeout) {
  blocking("reduce", group, timeout,
           [&] { return make_reduce(input, output, group_rank(root), op, group); });
}
Request ireduce(const Tensor& tensor, int root, ReduceOp op, const Group& group) {
  return async("ireduce", group,
               [&] { return make_reduce(tensor, tensor, world_rank(root), op, group); });
}
Request ireduce(const Tensor& tensor, GroupRank root, ReduceOp op, const Group& group) {
  return async("ireduce", group,
               [&] { return make_reduce(tensor, tensor, group_rank(root), op, group); });
}
Request ireduce(const Tensor& input, const Tensor& output, int root, ReduceOp op,
                const Group& group) {
  return async("ireduce", group,
               [&] { return make_reduce(input, output, world_rank(root), op, group); });
}
Request ireduce(const Tensor& input, const Tensor& output, GroupRank root, ReduceOp op,
                const Group& group) {
  return async("ireduce", group,
               [&] { return make_reduce(input, output, group_rank(root), op, group); });
}

void all_gather(const Tensor& input, const Tensor& output, const Group& group, Timeout timeout) {
  blocking("all_gather", group, timeout, [&] { return make_all_gather(input, output, group); });
}
Request iall_gather(const Tensor& input, const Tensor& output, const Group& group) {
  return async("iall_gather", group, [&] { return make_all_gather(input, output, group); });
}
void all_gather(std::span<const Tensor> tensor_list, const Tensor& tensor, const Group& group,
                Timeout timeout) {
  blocking("all_gather", group, timeout,
           [&] { return make_all_gather_list(tensor_list, tensor, group); });
}
Request iall_gather(std::span<const Tensor> tensor_list, const Tensor& tensor, const Group& group) {
  return async("iall_gather", group,
               [&] { return make_all_gather_list(tensor_list, tensor, group); });
}

void gather(const Tensor& input, const Tensor& output, int root, const Group& group,
            Timeout timeout) {
  blocking("gather", group, timeout, [&] {
    return make_gather("gather", input, output, {}, {}, false, world_rank(root), group);
  });
}
void gather(const Tensor& input, const Tensor& output, GroupRank root, const Group& group,
            Timeout timeout) {
  blocking("gather", group, timeout, [&] {
    return make_gather("gather", input, output, {}, {}, false, group_rank(root), group);
  });
}
Request igather(const Tensor& input, const Tensor& output, int root, const Group& group) {
  return async("igather", group, [&] {
    return make_gather("gather", input, output, {}, {}, false, world_rank(root), group);
  });
}
Request igather(const Tensor& input, const Tensor& output, GroupRank root, const Group& group) {
  return async("igather", group, [&] {
    return make_gather("gather", input, output, {}, {}, false, group_rank(root), group);
  });
}
void gather(const Tensor& tensor, int dst, std::span<const Tensor> gather_list, const Group& group,
            Timeout timeout) {
  blocking("gather", group, timeout,
           [&] { return make_gather_list(tensor, world_rank(dst), gather_list, group); });
}
void gather(const Tensor& tensor, GroupRank dst, std::span<const Tensor> gather_list,
            const Group& group, Timeout timeout) {
  blocking("gather", group, timeout,
           [&] { return make_gather_list(tensor, group_rank(dst), gather_list, group); });
}
Request igather(const Tensor& tensor, int dst, std::span<const Tensor> gather_list,
                const Group& group) {
  return async("igather", group,
               [&] { return make_gather_list(tensor, world_rank(dst), gather_list, group); });
}
Request igather(const Tensor& tensor, GroupRank dst, std::span<const Tensor> gather_list,
                const Group& group) {
  return async("igather", group,
               [&] { return make_gather_list(tensor, group_rank(dst), gather_list, group); });
}

void scatter(const Tensor& input, const Tensor& output, int root, const Group& group,
             Timeout timeout) {
  blocking("scatter", group, timeout, [&] {
    return make_scatter("scatter", input, output, {}, {}, false, world_rank(root), group);
  });
}
void scatter(const Tensor& input, const Tensor& output, GroupRank root, const Group& group,
             Timeout timeout) {
  blocking("scatter", group, timeout, [&] {
    return make_scatter("scatter", input, output, {}, {}, false, group_rank(root), group);
  });
}
Request iscatter(const Tensor& input, const Tensor& output, int root, const Group& group) {
  return async("iscatter", group, [&] {
    return make_scatter("scatter", input, output, {}, {}, false, world_rank(root), group);
  });
}
Request iscatter(const Tensor& input, const Tensor& output, GroupRank root, const Group& group) {
  return async("iscatter", group, [&] {
    return make_scatter("scatter", input, output, {}, {}, false, group_rank(root), group);
  });
}
void scatter(const Tensor& tensor, int src, std::span<const Tensor> scatter_list,
             const Group& group, Timeout timeout) {
  blocking("scatter", group, timeout,
           [&] { return make_scatter_list(tensor, world_rank(src), scatter_list, group); });
}
void scatter(const Tensor& tensor, GroupRank src, std::span<const Tensor> scatter_list,
             const Group& group, Timeout timeout) {
  blocking("scatter", group, timeout,
           [&] { return make_scatter_list(tensor, group_rank(src), scatter_list, group); });
}
Request iscatter(const Tensor& tensor, int src, std::span<const Tensor> scatter_list,
                 const Group& group) {
  return async("iscatter", group,
               [&] { return make_scatter_list(tensor, world_rank(src), scatter_list, group); });
}
Request iscatter(const Tensor& tensor, GroupRank src, std::span<const Tensor> scatter_list,
                 const Group& group) {
  return async("iscatter", group,
               [&] { return make_scatter_list(tensor, group_rank(src), scatter_list, group); });
}

void reduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op, const Group& group,
                    Timeout timeout) {
  blocking("reduce_scatter", group, timeout, [&] {
    return make_reduce_scatter("reduce_scatter", input, output, {}, false, op, group);
  });
}
Request ireduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op,
                        const Group& group) {
  return async("ireduce_scatter", group, [&] {
    return make_reduce_scatter("reduce_scatter", input, output, {}, false, op, group);
  });
}

void reduce_scatterv(const Tensor& input, const Tensor& output, Counts counts, ReduceOp op,
                     const Group& group, Timeout timeout) {
  blocking("reduce_scatterv", group, timeout, [&] {
    return make_reduce_scatter("reduce_scatterv", input, output, counts, true, op, group);
  });
}
Request ireduce_scatterv(const Tensor& input, const Tensor& output, Counts counts, ReduceOp op,
                         const Group& group) {
  return async("ireduce_scatterv", group, [&] {
    return make_reduce_scatter("reduce_scatterv", input, output, counts, true, op, group);
  });
}

void all_to_all(const Tensor& input, const Tensor& output, const Group& group, Timeout timeout) {
  blocking("all_to_all", group, timeout, [&] { return make_all_to_all(input, output, group); });
}
Request iall_to_all(const Tensor& input, const Tensor& output, const Group& group) {
  return async("iall_to_all", group, [&] { return make_all_to_all(input, output, group); });
}

void all_gatherv(const Tensor& input, const Tensor& output, Counts counts, Counts displs,
                 const Group& group, Timeout timeout) {
  blocking("all_gatherv", group, timeout,
           [&] { return make_all_gatherv(input, output, counts, displs, group); });
}
Request iall_gatherv(const Tensor& input, const Tensor& output, Counts counts, Counts displs,
                     const Group& group) {
  return async("iall_gatherv", group,
               [&] { return make_all_gatherv(input, output, counts, displs, group); });
}

void gatherv(const Tensor& input, const Tensor& output, Counts counts, int root, Counts displs,
             const Group& group, Timeout timeout) {
  blocking("gatherv", group, timeout, [&] {
    return make_gather("gatherv", input, output, counts, displs, true, world_rank(root), group);
  });
}
void gatherv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
             Counts displs, const Group& group, Timeout timeout) {
  blocking("gatherv", group, timeout, [&] {
    return make_gather("gatherv", input, output, counts, displs, true, group_rank(root), group);
  });
}
Request igatherv(const Tensor& input, const Tensor& output, Counts counts, int root, Counts displs,
                 const Group& group) {
  return async("igatherv", group, [&] {
    return make_gather("gatherv", input, output, counts, displs, true, world_rank(root), group);
  });
}
Request igatherv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
                 Counts displs, const Group& group) {
  return async("igatherv", group, [&] {
    return make_gather("gatherv", input, output, counts, displs, true, group_rank(root), group);
  });
}

void scatterv(const Tensor& input, const Tensor& output, Counts counts, int root, Counts displs,
              const Group& group, Timeout timeout) {
  blocking("scatterv", group, timeout, [&] {
    return make_scatter("scatterv", input, output, counts, displs, true, world_rank(root), group);
  });
}
void scatterv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
              Counts displs, const Group& group, Timeout timeout) {
  blocking("scatterv", group, timeout, [&] {
    return make_scatter("scatterv", input, output, counts, displs, true, group_rank(root), group);
  });
}
Request iscatterv(const Tensor& input, const Tensor& output, Counts counts, int root, Counts displs,
                  const Group& group) {
  return async("iscatterv", group, [&] {
    return make_scatter("scatterv", input, output, counts, displs, true, world_rank(root), group);
  });
}
Request iscatterv(const Tensor& input, const Tensor& output, Counts counts, GroupRank root,
                  Counts displs, const Group& group) {
  return async("iscatterv", group, [&] {
    return make_scatter("scatterv", input, output, counts, displs, true, group_rank(root), group);
  });
}

void all_to_allv(const Tensor& input, Counts send_counts, Counts send_displs, const Tensor& output,
                 Counts recv_counts, Counts recv_displs, const Group& group, Timeout timeout) {
  blocking("all_to_allv", group, timeout, [&] {
    return make_all_to_allv(input, send_counts, send_displs, output, recv_counts, recv_displs,
                            group);
  });
}
Request iall_to_allv(const Tensor& input, Counts send_counts, Counts send_displs,
                     const Tensor& output, Counts recv_counts, Counts recv_displs,
                     const Group& group) {
  return async("iall_to_allv", group, [&] {
    return make_all_to_allv(input, send_counts, send_displs, output, recv_counts, recv_displs,
                            group);
  });
}

}  // namespace weft

// WeftBackend: torch.distributed's Backend (c10d) over weft. The first weft backend of a
// process (the default group's, normally) joins weft's job through torch's store, and
// its ranks become weft's world ranks; every later one is a weft subgroup of the members
// c10d names, formed by them alone (non-members never create a c10d backend).
//
// Every operation returns a Work over weft's requests. A call made with async_op=False
// while none of this group's asynchronous collectives is in flight runs blocking in the
// caller's thread, as weft's blocking calls do, and returns a completed Work: nothing
// is handed to another thread on the way.
#pragma once

#include <weft/group.h>
#include <weft/request.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "tensors.h"

namespace weft::torch_backend {

class WeftBackend : public c10d::Backend {
 public:
  // `global_ranks`: the group's members as torch's global ranks (empty: every rank, for
  // the default group); `group_name`: c10d's name of the group, the same on its members.
  WeftBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
              std::chrono::milliseconds timeout, std::vector<int64_t> global_ranks,
              const std::string& group_name);
  ~WeftBackend() override;

  const std::string getBackendName() const override { return "weft"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(
      std::vector<std::vector<at::Tensor>>& output_lists, std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;

  // destroy_process_group: a subgroup is released; the group that joined weft's job
  // stops the Watcher and leaves the job. Idempotent.
  void shutdown() override;
  // weft::abort: every pending operation here and on every peer fails at once.
  void abort() override;

 private:
  // What one operation runs: `blocking` in the caller's thread, or `start`, which
  // returns weft's requests; `finish` after success (copies back), `outputs` for the
  // future, `keep` alive until weft is done with the buffers.
  struct Operation {
    c10d::OpType type;
    const char* title;
    std::vector<at::Tensor> outputs;
    std::shared_ptr<void> keep;
    std::function<void()> finish;
    std::function<void(Timeout)> blocking;
    std::function<std::vector<weft::Request>()> start;
  };
  c10::intrusive_ptr<c10d::Work> run(Operation op, bool async_op,
                                     std::chrono::milliseconds timeout);
  // Several operations as one (the coalesced forms): all started, one Work.
  static Operation combined(c10d::OpType type, const char* title, std::vector<Operation> parts);
  Operation all_gather_operation(const at::Tensor& output, const at::Tensor& input);
  Operation reduce_scatter_operation(const at::Tensor& output, const at::Tensor& input,
                                     const c10d::ReduceOp& reduce_op);
  Operation all_to_all_operation(const at::Tensor& output, const at::Tensor& input,
                                 const std::vector<int64_t>& output_splits,
                                 const std::vector<int64_t>& input_splits);
  std::chrono::milliseconds timeout_of(std::chrono::milliseconds given) const;
  Caller caller(const char* op) const { return {op, rank_}; }
  int size() const { return size_; }

  weft::Group group_;        // the world group when this backend joined the job
  bool joined_job_ = false;  // this backend called weft::init_process_group
  bool shut_down_ = false;
  std::chrono::milliseconds timeout_;
  // This group's asynchronous collectives not settled yet: while any is, calls made
  // with async_op=False go through weft's background thread too, after them.
  std::shared_ptr<std::atomic<int>> collectives_in_flight_;
};

}  // namespace weft::torch_backend

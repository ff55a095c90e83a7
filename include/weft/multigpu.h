// The multi-GPU collectives of the original package: each process passes one tensor
// per local GPU (each on a different device, all of one count and dtype), and the
// collective runs over every tensor of every process in the group.
//
// Within a process the tensors are combined on the first one's device (copies between
// devices, then weft's reduction kernels, in list order); between processes it is the
// device collective on the first tensor; then the result is copied to the others.
// Every process may pass a different number of tensors. They are read after the work
// queued on the current stream (weft/cuda.h) for the first tensor and on the default
// stream of each other tensor's device; results are in place when the call returns.
// A root is a world rank, or GroupRank{r} for the group's rank r, as in every collective;
// a process outside the group takes no part (the call returns at once).
#pragma once

#include <span>
#include <vector>

#include "weft/collectives.h"
#include "weft/group.h"
#include "weft/tensor.h"
#include "weft/timeout.h"

namespace weft {

// Every tensor of every process ends with `root`'s tensors[0].
void broadcast_multigpu(std::span<const Tensor> tensors, int root, const Group& group = Group(),
                        Timeout timeout = kDefaultTimeout);
void broadcast_multigpu(std::span<const Tensor> tensors, GroupRank root,
                        const Group& group = Group(), Timeout timeout = kDefaultTimeout);

// Every tensor of every process ends with the reduction of all of them (kAvg: divided
// by the number of tensors in the group), bitwise identical everywhere.
void all_reduce_multigpu(std::span<const Tensor> tensors, ReduceOp op = ReduceOp::kSum,
                         const Group& group = Group(), Timeout timeout = kDefaultTimeout);

// `root`'s tensors[0] ends with the reduction of all the tensors of the group; every
// other tensor is left unchanged.
void reduce_multigpu(std::span<const Tensor> tensors, int root, ReduceOp op = ReduceOp::kSum,
                     const Group& group = Group(), Timeout timeout = kDefaultTimeout);
void reduce_multigpu(std::span<const Tensor> tensors, GroupRank root, ReduceOp op = ReduceOp::kSum,
                     const Group& group = Group(), Timeout timeout = kDefaultTimeout);

// outputs[i] is a list, on the device of inputs[i], of one tensor per input of the
// group: outputs[i][k * inputs.size() + j] gets input j of rank k. (The original's
// documentation writes k * world_size + j, which is the same where each process has
// as many GPUs as there are processes.) Every process passes the same number of inputs.
void all_gather_multigpu(std::span<const std::vector<Tensor>> outputs,
                         std::span<const Tensor> inputs, const Group& group = Group(),
                         Timeout timeout = kDefaultTimeout);

}  // namespace weft

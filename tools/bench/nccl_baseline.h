// NCCL beside weft in `weft-bench -d cuda --compare nccl` (comparison only: weft itself
// never uses NCCL). libnccl.so.2 is loaded at run time, so no weft binary links it; the
// comparison is compiled only with --config=cuda, for nccl.h.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "weft/collectives.h"
#include "weft/tensor.h"

namespace weft::bench {

class NcclBaseline {
 public:
  virtual ~NcclBaseline() = default;

  // Every rank of the world calls it: one NCCL communicator of the world on `device`,
  // its unique id broadcast over weft. Returns null on every rank, with the reason in
  // `why`, when any rank cannot join (no libnccl, a build without CUDA, or NCCL refusing
  // the job, as it refuses two ranks on one GPU).
  static std::unique_ptr<NcclBaseline> connect(int device, std::string& why);

  // Microseconds per out-of-place call of `collective` (weft-bench's name for it) on
  // device tensors shaped as weft-bench's: `big` the larger buffer, `small` the
  // per-rank one. Each call is waited for, as weft's blocking call is. nullopt where
  // NCCL has no such operation (the bitwise ops).
  virtual std::optional<double> time(const std::string& collective, const Tensor& big,
                                     const Tensor& small, int root, ReduceOp op, int warmup,
                                     int iterations) = 0;
};

}  // namespace weft::bench

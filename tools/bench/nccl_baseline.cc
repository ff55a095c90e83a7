// NcclBaseline over libnccl.so.2, opened with dlopen.
#include "tools/bench/nccl_baseline.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <vector>

#include "weft/weft.h"

namespace weft::bench {
namespace {

// The NCCL functions weft-bench calls, looked up by name.
struct Nccl {
  decltype(&ncclGetUniqueId) get_unique_id;
  decltype(&ncclCommInitRank) init_rank;
  decltype(&ncclCommDestroy) destroy;
  decltype(&ncclGetErrorString) error_string;
  decltype(&ncclAllReduce) all_reduce;
  decltype(&ncclBroadcast) broadcast;
  decltype(&ncclReduce) reduce;
  decltype(&ncclAllGather) all_gather;
  decltype(&ncclReduceScatter) reduce_scatter;
  decltype(&ncclAlltoAll) all_to_all;
  decltype(&ncclGather) gather;
  decltype(&ncclScatter) scatter;
};

// Loads libnccl; an empty string when it worked, else why not.
std::string load(Nccl& nccl) {
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen("/usr/local/cuda/lib64/libnccl.so.2", RTLD_NOW);
  if (library == nullptr) return std::string("cannot load libnccl.so.2: ") + dlerror();
  std::string missing;
  auto find = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  find(nccl.get_unique_id, "ncclGetUniqueId");
  find(nccl.init_rank, "ncclCommInitRank");
  find(nccl.destroy, "ncclCommDestroy");
  find(nccl.error_string, "ncclGetErrorString");
  find(nccl.all_reduce, "ncclAllReduce");
  find(nccl.broadcast, "ncclBroadcast");
  find(nccl.reduce, "ncclReduce");
  find(nccl.all_gather, "ncclAllGather");
  find(nccl.reduce_scatter, "ncclReduceScatter");
  find(nccl.all_to_all, "ncclAlltoAll");
  find(nccl.gather, "ncclGather");
  find(nccl.scatter, "ncclScatter");
  return missing.empty() ? "" : "libnccl.so.2 lacks " + missing;
}

ncclDataType_t nccl_type(DType d) {
  switch (d) {
    case DType::kInt8:
      return ncclInt8;
    case DType::kUInt8:
      return ncclUint8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kUInt32:
      return ncclUint32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUInt64:
      return ncclUint64;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
  }
  return ncclFloat32;
}

std::optional<ncclRedOp_t> nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProduct:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
    default:
      return std::nullopt;  // NCCL has no bitwise reductions
  }
}

class NcclComm : public NcclBaseline {
 public:
  NcclComm(const Nccl& nccl, ncclComm_t comm, cudaStream_t stream)
      : nccl_(nccl), comm_(comm), stream_(stream) {}
  ~NcclComm() override {
    nccl_.destroy(comm_);
    cudaStreamDestroy(stream_);
  }

  std::optional<double> time(const std::string& collective, const Tensor& big, const Tensor& small,
                             int root, ReduceOp op, int warmup, int iterations) override {
    const std::optional<ncclRedOp_t> reduction = nccl_op(op);
    const ncclDataType_t type = nccl_type(big.dtype());
    const uint64_t part = small.count();
    auto call = [&]() -> ncclResult_t {
      if (collective == "all_reduce") {
        return nccl_.all_reduce(small.data(), big.data(), big.count(), type, *reduction, comm_,
                                stream_);
      } else if (collective == "broadcast") {
        return nccl_.broadcast(small.data(), small.data(), small.count(), type, root, comm_,
                               stream_);
      } else if (collective == "reduce") {
        return nccl_.reduce(small.data(), big.data(), big.count(), type, *reduction, root, comm_,
                            stream_);
      } else if (collective == "all_gather") {
        return nccl_.all_gather(small.data(), big.data(), part, type, comm_, stream_);
      } else if (collective == "gather") {
        return nccl_.gather(small.data(), big.data(), part, type, root, comm_, stream_);
      } else if (collective == "scatter") {
        return nccl_.scatter(big.data(), small.data(), part, type, root, comm_, stream_);
      } else if (collective == "reduce_scatter") {
        return nccl_.reduce_scatter(big.data(), small.data(), part, type, *reduction, comm_,
                                    stream_);
      } else {  // all_to_all: small is as large as big
        return nccl_.all_to_all(big.data(), small.data(), big.count() / get_world_size(), type,
                                comm_, stream_);
      }
    };
    const bool reduces =
        collective == "all_reduce" || collective == "reduce" || collective == "reduce_scatter";
    if (reduces && !reduction) return std::nullopt;
    auto run = [&] {
      const ncclResult_t r = call();
      if (r != ncclSuccess) {
        throw Error(ErrorCode::kInternal,
                    "NCCL " + collective + ": " + std::string(nccl_.error_string(r)));
      }
      cudaStreamSynchronize(stream_);
    };
    for (int i = 0; i < warmup; ++i) run();
    barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) run();
    std::vector<double> us{
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() /
        iterations};
    all_reduce(view(us), ReduceOp::kMax);  // the slowest rank's, as weft's figure
    return us[0];
  }

 private:
  const Nccl& nccl_;
  ncclComm_t comm_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<NcclBaseline> NcclBaseline::connect(int device, std::string& why) {
  static Nccl nccl;
  why = load(nccl);
  ncclUniqueId id{};
  // Everyone learns whether rank 0 could make an id, and then whether all joined.
  uint32_t failed = why.empty() ? 0 : 1;
  all_reduce(view(std::span(&failed, 1)), ReduceOp::kMax);
  if (failed != 0) {
    if (why.empty()) why = "libnccl could not be loaded on every rank";
    return nullptr;
  }
  if (get_rank() == 0 && nccl.get_unique_id(&id) != ncclSuccess) failed = 1;
  broadcast(Tensor(&id, sizeof id, DType::kUInt8), 0);
  all_reduce(view(std::span(&failed, 1)), ReduceOp::kMax);
  if (failed != 0) {
    why = "ncclGetUniqueId failed on rank 0";
    return nullptr;
  }
  cudaSetDevice(device);
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  ncclComm_t comm = nullptr;
  const ncclResult_t r = nccl.init_rank(&comm, get_world_size(), id, get_rank());
  uint32_t refused = r == ncclSuccess ? 0 : 1;
  all_reduce(view(std::span(&refused, 1)), ReduceOp::kMax);
  if (refused != 0) {
    why = r == ncclSuccess ? "NCCL refused the job on another rank"
                           : std::string("ncclCommInitRank: ") + nccl.error_string(r);
    if (r == ncclSuccess) nccl.destroy(comm);
    cudaStreamDestroy(stream);
    return nullptr;
  }
  return std::make_unique<NcclComm>(nccl, comm, stream);
}

}  // namespace weft::bench

// CollectiveSpec: what one rank's call of a collective asks for, in the terms the
// algorithms work in (group size and rank, element counts, blocks of the buffers).
// Built from the public call's arguments by runtime/api/collectives.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/host_layout.h"
#include "weft/tensor.h"
#include "weft/types.h"

namespace weft::collectives {

enum class CollectiveKind : uint8_t {
  kBarrier,
  kBroadcast,
  kAllReduce,
  kReduce,
  kAllGather,  // all_gather and all_gatherv
  kGather,     // gather and gatherv
  kScatter,    // scatter and scatterv
  kReduceScatter,
  kAllToAll,  // all_to_all and all_to_allv
};
inline constexpr int kNumCollectiveKinds = 9;
const char* collective_name(CollectiveKind kind);  // "all_reduce", ...

// `count` elements at element `offset` of a buffer.
struct Block {
  uint64_t offset = 0;
  uint64_t count = 0;
};

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kBarrier;
  ReduceOp op = ReduceOp::kSum;
  DType dtype = DType::kUInt8;
  int size = 1;  // group size
  int rank = 0;  // group rank
  int root = 0;  // broadcast, reduce, gather, scatter

  // broadcast, all_reduce, reduce: elements of the vector.
  uint64_t count = 0;
  // all_gather, gather: where rank r's contribution goes in the output;
  // scatter: where rank r's part lies in the input; reduce_scatter: rank r's slice of
  // the input (and the size of r's output); all_to_all: what goes to rank r, in the
  // input. Known for every rank except for gather and scatter, where non-roots know
  // only their own.
  std::vector<Block> blocks;
  // all_to_all: where what comes from rank r goes, in the output.
  std::vector<Block> recv_blocks;

  // In place: the input is part of the output from this element on (all_reduce,
  // broadcast, reduce, all_gather, gather, all_to_all); -1 when they are separate.
  int64_t input_in_output = -1;
  // reduce_scatter and scatter in place: the output is the input's block `rank`.
  bool output_in_input = false;
  bool in_place() const { return input_in_output >= 0 || output_in_input; }

  // all_gatherv, gatherv, scatterv, all_to_allv: counts may differ between ranks.
  bool variable_counts = false;

  // The group has a shared-memory arena (every member shares memory with every other):
  // the same on every member, so the selection table may key on it.
  bool shared_arena = false;

  // Which host each rank runs on, when the group spans several and some host has more
  // than one rank (the hierarchical algorithms need it); null otherwise. Owned by the
  // group (runtime/group_record.h), the same on every member.
  const HostLayout* hosts = nullptr;

  // Segment size of pipelined algorithms, in elements (at least 1).
  uint64_t segment = 1;

  uint64_t element_bytes() const { return dtype_size(dtype); }
};

}  // namespace weft::collectives

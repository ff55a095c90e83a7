// The collective benchmarks, in the format of nccl-tests: for each size, the time of
// out-of-place and in-place calls, algorithm and bus bandwidth, and #wrong, the
// elements that differ from the serial reference in a checked call after the timed
// ones (integer-valued data, so the comparison is exact).
//
// Sizes are bytes of the larger buffer, as in nccl-tests: the vector of all_reduce,
// broadcast and reduce; everything gathered (all_gather, gather); everything scattered
// or exchanged (scatter, reduce_scatter's input, all_to_all).
// busbw = algbw x factor, where algbw = size / time and the factor makes the figure
// comparable with the link bandwidth: 2(n-1)/n for all_reduce; (n-1)/n for all_gather,
// reduce_scatter, all_to_all, gather and scatter; 1 for broadcast and reduce.
// allocs/op: heap allocations per call over the timed calls, so that a collective that
// allocates in its steady state shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace weft::bench {

struct CollectiveOptions {
  std::string collective;  // all_reduce, broadcast, reduce, all_gather, ...
  uint64_t min_bytes = 8, max_bytes = 64ull << 20;
  int factor = 2;
  int iterations = 20, warmup = 5;
  bool check = true;
  std::vector<DType> dtypes{DType::kFloat32};
  std::vector<ReduceOp> ops{ReduceOp::kSum};
  int root = 0;
  std::string json_path;
  bool on_device = false;     // -d cuda: buffers in device memory (tools/bench/device_buffers.h)
  bool compare_nccl = false;  // --compare nccl, with -d cuda (tools/bench/nccl_baseline.h)
};

struct CollectiveRow {
  uint64_t bytes, count;
  DType dtype;
  const char* redop;  // "none" where the collective does not reduce
  int root;           // -1 where the collective has none
  double oop_us, ip_us, oop_algbw, oop_busbw, ip_algbw, ip_busbw;
  uint64_t oop_wrong, ip_wrong;
  // -d cuda with every rank on one device: the time the device's memory bandwidth
  // allows at the least (see Collective::traffic in collectives.cc); 0 otherwise.
  double bound_us;
  // --compare nccl: NCCL's out-of-place time in the same run; 0 where not measured.
  double nccl_us;
  // Heap allocations per call over the timed calls (tools/bench/allocation_counter.h):
  // the larger of out-of-place and in-place, on the rank that made the most.
  double allocs_per_op;
  // The out-of-place calls one by one (a second batch of -n calls, each timed on its own,
  // after the batch the mean comes from), each the slowest rank's time for that call: the
  // median, the 99th percentile (nearest rank) and the slowest. A mean hides a few
  // stalled calls; these do not.
  double oop_p50_us = 0, oop_p99_us = 0, oop_max_us = 0;
};

// True if `name` is a collective weft-bench can time.
bool is_benchmarked_collective(const std::string& name);

// Runs on every rank; rank 0 prints the table and returns the rows.
std::vector<CollectiveRow> run_collective_benchmark(const CollectiveOptions& options);

void write_collective_json(const std::string& path, const CollectiveOptions& options,
                           const std::vector<CollectiveRow>& rows);

}  // namespace weft::bench

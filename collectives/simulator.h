// The scale simulator: runs one algorithm's schedules for every rank of a virtual group
// inside one process, with no network, moving real data and reducing it with the real
// kernels, so that an algorithm can be checked for thousands of ranks. Messages match
// as on real links (per pair of ranks, in order) and a send completes only when its
// receive takes it — the strictest transport — so a schedule that finishes here
// cannot deadlock on eager or rendezvous links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithm_table.h"
#include "collectives/collective_spec.h"
#include "collectives/executor.h"

namespace weft::collectives {

struct SimulationReport {
  // Length of the longest chain of messages, each depending on the one before: the
  // latency term of the algorithm (a binomial broadcast: ceil(log2 n)).
  int rounds = 0;
  std::vector<uint64_t> bytes_sent;     // per rank
  std::vector<uint64_t> messages_sent;  // per rank
  std::vector<uint64_t> scratch_bytes;  // per rank
  // With a host layout (CollectiveSpec::hosts): the bytes each host sent to others, the
  // messages between hosts in all (a barrier's carry no bytes), and the longest chain
  // counting only messages between hosts (the rounds a slow network pays for).
  std::vector<uint64_t> inter_host_bytes_sent;  // per host
  uint64_t inter_host_messages = 0;
  int inter_host_rounds = 0;

  uint64_t max_bytes_sent() const;
  uint64_t max_messages_sent() const;
};

// Runs `algorithm` with rank r's call described by specs[r] on buffers[r] (input and
// output as the caller laid them out, aliased for in-place calls; the simulator
// provides scratch). Throws Error naming the ranks if messages do not match in size or
// the schedules deadlock.
SimulationReport simulate(const Algorithm& algorithm, const std::vector<CollectiveSpec>& specs,
                          const std::vector<Buffers>& buffers);

}  // namespace weft::collectives

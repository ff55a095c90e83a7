// SimJob: one collective call on every rank of a virtual group, with integer-valued
// int32 inputs, run by the simulator and checked against a serial reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithm_table.h"
#include "collectives/simulator.h"

namespace weft::collectives::testing {

struct SimCase {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int size = 4;
  uint64_t count = 7;  // all_reduce etc.: the vector; gather-like: per rank
  int root = 0;
  ReduceOp op = ReduceOp::kSum;
  bool in_place = false;
  bool variable = false;  // v-forms: rank r contributes count + r % 3 elements
  uint64_t segment = 1 << 20;
  const HostLayout* hosts = nullptr;  // the hierarchical algorithms' (host_layout())
};

struct SimResult {
  SimulationReport report;
  std::string mismatch;  // empty when every rank's result equals the reference
};

SimResult run_sim(const Algorithm& algorithm, const SimCase& c);

}  // namespace weft::collectives::testing

// Checks of every collective on one group, run by each member: each call's results
// compared with the serial reference (typed_values.h). Used by the multi-process
// tests for the world, for sub-groups and for each algorithm forced in turn.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/weft.h"

namespace weft::testing {

struct CheckOptions {
  std::vector<DType> dtypes;  // empty: all ten
  std::vector<ReduceOp> ops;  // empty: all eight (bitwise ones on integer dtypes)
  std::vector<uint64_t> counts = {0, 1, 7, 1023};
  bool variable_forms = true;  // all_gatherv, gatherv, scatterv, all_to_allv
};

// Runs every collective under `options` on `group` (this rank must be a member).
void check_all_collectives(const Group& group, const CheckOptions& options);

// After an all_reduce, every rank must hold the same bytes: all-gathers them and
// compares with rank 0's.
void expect_identical_everywhere(const Group& group, const Tensor& result);

}  // namespace weft::testing

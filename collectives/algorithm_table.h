// The algorithms of every collective, and the choice among them.
//
// select_algorithm() looks at what every rank of the call agrees on (the collective,
// the total bytes, the group size, whether counts vary), so that all ranks choose the
// same algorithm without talking. WEFT_ALGO overrides the table per collective, e.g.
// WEFT_ALGO=all_reduce:ring,broadcast:chain. The thresholds were measured on the
// development machine with weft-bench; docs/ALGORITHMS.md has the figures.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collectives/algorithms/algorithms.h"
#include "collectives/arena/arena_algorithms.h"
#include "collectives/collective_spec.h"
#include "collectives/schedule.h"

namespace weft::collectives {

struct Algorithm {
  CollectiveKind kind;
  const char* name;
  algorithms::Generator generate;  // its schedule; null for those that run in the arena
  // Why it cannot run `spec` (e.g. "needs a power-of-two group"), or nullptr.
  const char* (*cannot_run)(const CollectiveSpec& spec) = nullptr;
  // Runs the call in the group's shared-memory arena instead of a schedule.
  arena::Runner run_in_arena = nullptr;
};

std::span<const Algorithm> all_algorithms();
// nullptr when `kind` has no algorithm called `name`.
const Algorithm* find_algorithm(CollectiveKind kind, std::string_view name);
// "ring, recursive_doubling, ..." for error messages.
std::string algorithm_names(CollectiveKind kind);

// Bytes the selection table keys on: the whole vector (broadcast, all_reduce, reduce)
// or everything gathered, scattered or exchanged.
uint64_t selection_bytes(const CollectiveSpec& spec);

// Whether every rank of the call can tell that it moves no element at all (all_reduce
// of 0 elements, all_gather of empty parts, ...). Such a call runs as a barrier: the
// ranks still meet, so a rank that passed 10 elements where another passed 0 fails
// with DesyncError at once instead of waiting out its timeout for messages that
// never come. Not for gatherv, scatterv and all_to_allv, whose ranks may know only
// their own counts.
bool moves_nothing_anywhere(const CollectiveSpec& spec);

// The table's choice, unless WEFT_ALGO names another that can run `spec`.
const Algorithm& select_algorithm(const CollectiveSpec& spec);

// The schedule of `spec` under `algorithm`, with the buffers' aliasing declared.
Schedule build_schedule(const Algorithm& algorithm, const CollectiveSpec& spec);

// Segment size of pipelined algorithms for `dtype`: WEFT_SEGMENT_BYTES, rounded down
// to whole elements.
uint64_t segment_elements(DType dtype);

}  // namespace weft::collectives

// ScheduleCache: built schedules, kept for calls that repeat. Training loops call the
// same collective on the same shapes over and over, and building a schedule (tracking
// every region's hazards) costs more CPU than the exchange itself for small messages.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "collectives/algorithm_table.h"
#include "collectives/collective_spec.h"
#include "collectives/schedule.h"

namespace weft::collectives {

class ScheduleCache {
 public:
  // The schedule of `spec` under `algorithm`, built on first use.
  std::shared_ptr<const Schedule> get(const Algorithm& algorithm, const CollectiveSpec& spec);

 private:
  // Schedules beyond this many are dropped (all at once: simple, and a program that
  // cycles through more shapes than this is not served by a cache anyway).
  static constexpr size_t kCapacity = 256;

  struct Entry {
    const Algorithm* algorithm;
    CollectiveSpec spec;
    std::shared_ptr<const Schedule> schedule;
  };

  std::mutex mutex_;
  // By a hash of what the schedule depends on; a hit is confirmed field by field, so
  // a lookup allocates nothing.
  std::unordered_multimap<uint64_t, Entry> schedules_;
};

}  // namespace weft::collectives

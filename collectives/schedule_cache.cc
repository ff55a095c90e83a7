#include "collectives/schedule_cache.h"

#include "base/fnv_hash.h"

namespace weft::collectives {
namespace {

// What a schedule depends on: not the op or dtype, which only the kernels see (the
// dtype's element size enters through the segment), nor addresses.
uint64_t hash_of(const Algorithm& algorithm, const CollectiveSpec& spec) {
  base::Fnv1a h;
  h.add(&algorithm);
  h.add(spec.kind);
  h.add(spec.size);
  h.add(spec.rank);
  h.add(spec.root);
  h.add(spec.count);
  h.add(spec.input_in_output);
  h.add(spec.output_in_input);
  h.add(spec.variable_counts);
  h.add(spec.segment);
  for (const Block& b : spec.blocks) h.add(b);
  for (const Block& b : spec.recv_blocks) h.add(b);
  h.add(spec.hosts == nullptr ? 0 : spec.hosts->fingerprint);
  return h.value();
}

bool same_blocks(const std::vector<Block>& a, const std::vector<Block>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].offset != b[i].offset || a[i].count != b[i].count) return false;
  }
  return true;
}

bool same_schedule_inputs(const CollectiveSpec& a, const CollectiveSpec& b) {
  return a.kind == b.kind && a.size == b.size && a.rank == b.rank && a.root == b.root &&
         a.count == b.count && a.input_in_output == b.input_in_output &&
         a.output_in_input == b.output_in_input && a.variable_counts == b.variable_counts &&
         a.segment == b.segment && same_blocks(a.blocks, b.blocks) &&
         same_blocks(a.recv_blocks, b.recv_blocks) && a.hosts == b.hosts;
}

}  // namespace

std::shared_ptr<const Schedule> ScheduleCache::get(const Algorithm& algorithm,
                                                   const CollectiveSpec& spec) {
  const uint64_t hash = hash_of(algorithm, spec);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = schedules_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
      if (it->second.algorithm == &algorithm && same_schedule_inputs(it->second.spec, spec)) {
        return it->second.schedule;
      }
    }
  }
  auto schedule = std::make_shared<const Schedule>(build_schedule(algorithm, spec));
  std::lock_guard<std::mutex> lock(mutex_);
  if (schedules_.size() >= kCapacity) schedules_.clear();
  schedules_.emplace(hash, Entry{&algorithm, spec, schedule});
  return schedule;
}

}  // namespace weft::collectives

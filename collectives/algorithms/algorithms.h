// The algorithm generators: each adds one rank's part of one collective to a
// ScheduleBuilder. Ranks are group ranks; regions are in elements. Generators never
// communicate or allocate memory themselves; the executor and the simulator run what
// they produce.
#pragma once

#include "collectives/collective_spec.h"
#include "collectives/schedule.h"

namespace weft::collectives::algorithms {

using Generator = void (*)(const CollectiveSpec&, ScheduleBuilder&);

// barrier
void dissemination_barrier(const CollectiveSpec& spec, ScheduleBuilder& b);
// broadcast
void binomial_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b);
void chain_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b);
// all_reduce
void ring_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void recursive_doubling_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void rabenseifner_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void binomial_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void double_binary_tree_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
// reduce
void binomial_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void ring_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
// all_gather
void ring_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
void bruck_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
void recursive_doubling_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
// gather, scatter
void binomial_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
void linear_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
void binomial_scatter(const CollectiveSpec& spec, ScheduleBuilder& b);
void linear_scatter(const CollectiveSpec& spec, ScheduleBuilder& b);
// reduce_scatter
void ring_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b);
void recursive_halving_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b);
// all_to_all
void pairwise_all_to_all(const CollectiveSpec& spec, ScheduleBuilder& b);
// groups across hosts (CollectiveSpec::hosts; hierarchical.cc)
void hierarchical_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void sliced_hierarchical_all_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void hierarchical_broadcast(const CollectiveSpec& spec, ScheduleBuilder& b);
void hierarchical_reduce(const CollectiveSpec& spec, ScheduleBuilder& b);
void hierarchical_all_gather(const CollectiveSpec& spec, ScheduleBuilder& b);
void hierarchical_reduce_scatter(const CollectiveSpec& spec, ScheduleBuilder& b);
void hierarchical_barrier(const CollectiveSpec& spec, ScheduleBuilder& b);

}  // namespace weft::collectives::algorithms

#include "collectives/algorithm_table.h"

#include <array>
#include <mutex>

#include "base/env.h"
#include "base/log.h"
#include "weft/error.h"

namespace weft::collectives {
namespace {

using K = CollectiveKind;

const char* needs_power_of_two(const CollectiveSpec& spec) {
  return (spec.size & (spec.size - 1)) == 0 ? nullptr : "needs a power-of-two group";
}
const char* needs_uniform_counts(const CollectiveSpec& spec) {
  return spec.variable_counts ? "needs the same count on every rank" : nullptr;
}

const char* needs_shared_arena(const CollectiveSpec& spec) {
  return spec.shared_arena ? nullptr
                           : "needs a group whose members all share memory (one host, "
                             "WEFT_SHM_ARENA_BYTES not 0)";
}

const char* needs_hosts(const CollectiveSpec& spec) {
  return spec.hosts != nullptr ? nullptr
                               : "needs a group across several hosts, with more than one "
                                 "rank on some host";
}

const char* needs_uniform_hosts(const CollectiveSpec& spec) {
  if (const char* why = needs_hosts(spec)) return why;
  return spec.hosts->uniform ? nullptr : "needs the same number of ranks on every host";
}

constexpr Algorithm kAlgorithms[] = {
    {K::kBarrier, "dissemination", algorithms::dissemination_barrier},
    {K::kBroadcast, "binomial", algorithms::binomial_broadcast},
    {K::kBroadcast, "chain", algorithms::chain_broadcast},
    {K::kAllReduce, "recursive_doubling", algorithms::recursive_doubling_all_reduce},
    {K::kAllReduce, "rabenseifner", algorithms::rabenseifner_all_reduce},
    {K::kAllReduce, "ring", algorithms::ring_all_reduce},
    {K::kAllReduce, "double_binary_tree", algorithms::double_binary_tree_all_reduce},
    {K::kAllReduce, "binomial", algorithms::binomial_all_reduce},
    {K::kReduce, "binomial", algorithms::binomial_reduce},
    {K::kReduce, "ring", algorithms::ring_reduce},
    {K::kAllGather, "bruck", algorithms::bruck_all_gather},
    {K::kAllGather, "recursive_doubling", algorithms::recursive_doubling_all_gather,
     needs_power_of_two},
    {K::kAllGather, "ring", algorithms::ring_all_gather},
    {K::kGather, "binomial", algorithms::binomial_gather, needs_uniform_counts},
    {K::kGather, "linear", algorithms::linear_gather},
    {K::kScatter, "binomial", algorithms::binomial_scatter, needs_uniform_counts},
    {K::kScatter, "linear", algorithms::linear_scatter},
    {K::kReduceScatter, "recursive_halving", algorithms::recursive_halving_reduce_scatter,
     needs_power_of_two},
    {K::kReduceScatter, "ring", algorithms::ring_reduce_scatter},
    {K::kAllToAll, "pairwise", algorithms::pairwise_all_to_all},
    // Across hosts (algorithms/hierarchical.cc).
    {K::kAllReduce, "hierarchical", algorithms::hierarchical_all_reduce, needs_hosts},
    {K::kAllReduce, "hierarchical_sliced", algorithms::sliced_hierarchical_all_reduce,
     needs_uniform_hosts},
    {K::kBroadcast, "hierarchical", algorithms::hierarchical_broadcast, needs_hosts},
    {K::kReduce, "hierarchical", algorithms::hierarchical_reduce, needs_hosts},
    {K::kAllGather, "hierarchical", algorithms::hierarchical_all_gather, needs_uniform_hosts},
    {K::kReduceScatter, "hierarchical", algorithms::hierarchical_reduce_scatter, needs_hosts},
    {K::kBarrier, "hierarchical", algorithms::hierarchical_barrier, needs_hosts},
    // In the group's shared-memory arena (collectives/arena).
    {K::kBarrier, "shm", nullptr, needs_shared_arena, arena::barrier},
    {K::kBroadcast, "shm", nullptr, needs_shared_arena, arena::broadcast},
    {K::kAllReduce, "shm_direct", nullptr, needs_shared_arena, arena::all_reduce_direct},
    {K::kAllReduce, "shm_sliced", nullptr, needs_shared_arena, arena::all_reduce_sliced},
    {K::kReduce, "shm", nullptr, needs_shared_arena, arena::reduce_direct},
    {K::kAllGather, "shm", nullptr, needs_shared_arena, arena::all_gather},
};

const Algorithm& named(K kind, std::string_view name) {
  const Algorithm* a = find_algorithm(kind, name);
  if (a == nullptr) {
    throw Error(ErrorCode::kInternal, std::string("no algorithm ") + std::string(name));
  }
  return *a;
}

// The selection table. Thresholds: docs/ALGORITHMS.md, "Selection".
const Algorithm& table_choice(const CollectiveSpec& spec) {
  const uint64_t bytes = selection_bytes(spec);
  const int n = spec.size;
  if (spec.shared_arena) {
    // Looked up once: these calls take a fraction of a microsecond, and a name lookup
    // costs a visible part of that.
    static const Algorithm* const shm[kNumCollectiveKinds] = {find_algorithm(K::kBarrier, "shm"),
                                                              find_algorithm(K::kBroadcast, "shm"),
                                                              nullptr,
                                                              find_algorithm(K::kReduce, "shm"),
                                                              find_algorithm(K::kAllGather, "shm"),
                                                              nullptr,
                                                              nullptr,
                                                              nullptr,
                                                              nullptr};
    static const Algorithm& shm_direct = named(K::kAllReduce, "shm_direct");
    static const Algorithm& shm_sliced = named(K::kAllReduce, "shm_sliced");
    if (spec.kind == K::kAllReduce) return bytes <= (16 << 10) ? shm_direct : shm_sliced;
    // Two ranks, larger vectors: one single-copy message beats staging and copying out
    // (measured, docs/ALGORITHMS.md).
    const bool broadcast_over_links = spec.kind == K::kBroadcast && n == 2 && bytes >= (32 << 10);
    const Algorithm* choice = shm[static_cast<int>(spec.kind)];
    if (choice != nullptr && !broadcast_over_links) return *choice;
  }
  if (spec.hosts != nullptr) {
    // Across hosts, the network is what costs: docs/ALGORITHMS.md, "Hierarchical
    // algorithms". Slices pay off once each rank's slice is worth a message of its own.
    if (spec.kind == K::kAllReduce) {
      const bool sliced = spec.hosts->uniform && bytes >= (256 << 10);
      return named(spec.kind, sliced ? "hierarchical_sliced" : "hierarchical");
    }
    if (spec.kind == K::kBroadcast || spec.kind == K::kReduce || spec.kind == K::kReduceScatter ||
        spec.kind == K::kBarrier || (spec.kind == K::kAllGather && spec.hosts->uniform)) {
      return named(spec.kind, "hierarchical");
    }
  }
  switch (spec.kind) {
    case K::kBarrier:
      return named(spec.kind, "dissemination");
    case K::kBroadcast:
      return named(spec.kind, n <= 2 || bytes < (256 << 10) ? "binomial" : "chain");
    case K::kAllReduce:
      if (bytes <= (32 << 10) || n == 1) return named(spec.kind, "recursive_doubling");
      // Two ranks: the ring is one exchange per phase, pipelined in segments.
      if (n == 2 || bytes > (4 << 20)) return named(spec.kind, "ring");
      return named(spec.kind, "rabenseifner");
    case K::kReduce:
      // The binomial tree sends log2(n) times the vector through the root, the ring
      // twice: the ring pays off for large vectors on larger groups.
      return named(spec.kind, n <= 4 || bytes < (1 << 20) ? "binomial" : "ring");
    case K::kAllGather:
      if ((n & (n - 1)) == 0 && bytes < (1 << 20)) return named(spec.kind, "recursive_doubling");
      return named(spec.kind, bytes < (64 << 10) ? "bruck" : "ring");
    case K::kGather:
      return named(spec.kind, !spec.variable_counts && bytes < (64 << 10) ? "binomial" : "linear");
    case K::kScatter:
      return named(spec.kind, !spec.variable_counts && bytes < (64 << 10) ? "binomial" : "linear");
    case K::kReduceScatter:
      return named(spec.kind,
                   (n & (n - 1)) == 0 && bytes < (256 << 10) ? "recursive_halving" : "ring");
    case K::kAllToAll:
      return named(spec.kind, "pairwise");
  }
  throw Error(ErrorCode::kInternal, "no algorithm for this collective");
}

// WEFT_ALGO, parsed once: the algorithm forced on each collective, null where none is.
using ForcedAlgorithms = std::array<const Algorithm*, kNumCollectiveKinds>;
const ForcedAlgorithms& forced_algorithms() {
  static const ForcedAlgorithms forced = [] {
    ForcedAlgorithms result{};
    auto value = base::env::get("WEFT_ALGO");
    if (!value) return result;
    std::string text = *value;
    size_t at = 0;
    while (at <= text.size()) {
      size_t comma = text.find(',', at);
      std::string item = text.substr(at, comma == std::string::npos ? comma : comma - at);
      at = comma == std::string::npos ? text.size() + 1 : comma + 1;
      if (item.empty()) continue;
      size_t colon = item.find(':');
      std::string collective = item.substr(0, colon);
      int kind = -1;
      for (int k = 0; k < kNumCollectiveKinds; ++k) {
        if (collective == collective_name(static_cast<K>(k))) kind = k;
      }
      if (colon == std::string::npos || kind < 0) {
        throw InvalidArgument("WEFT_ALGO=" + text + ": \"" + item +
                              "\" is not collective:algorithm with a known collective (e.g. "
                              "all_reduce:ring)");
      }
      std::string name = item.substr(colon + 1);
      const Algorithm* a = find_algorithm(static_cast<K>(kind), name);
      if (a == nullptr) {
        throw InvalidArgument("WEFT_ALGO=" + text + ": " + collective + " has no algorithm \"" +
                              name + "\"; known: " + algorithm_names(static_cast<K>(kind)));
      }
      result[kind] = a;
    }
    return result;
  }();
  return forced;
}

}  // namespace

const char* collective_name(CollectiveKind kind) {
  static const char* const names[kNumCollectiveKinds] = {"barrier", "broadcast",      "all_reduce",
                                                         "reduce",  "all_gather",     "gather",
                                                         "scatter", "reduce_scatter", "all_to_all"};
  return names[static_cast<int>(kind)];
}

std::span<const Algorithm> all_algorithms() { return kAlgorithms; }

const Algorithm* find_algorithm(CollectiveKind kind, std::string_view name) {
  for (const Algorithm& a : kAlgorithms) {
    if (a.kind == kind && name == a.name) return &a;
  }
  return nullptr;
}

std::string algorithm_names(CollectiveKind kind) {
  std::string names;
  for (const Algorithm& a : kAlgorithms) {
    if (a.kind != kind) continue;
    if (!names.empty()) names += ", ";
    names += a.name;
  }
  return names;
}

uint64_t selection_bytes(const CollectiveSpec& spec) {
  uint64_t elements = spec.count;
  if (spec.kind == K::kAllGather || spec.kind == K::kGather || spec.kind == K::kScatter ||
      spec.kind == K::kReduceScatter || spec.kind == K::kAllToAll) {
    elements = 0;
    for (const Block& b : spec.blocks) elements += b.count;
  }
  return elements * spec.element_bytes();
}

bool moves_nothing_anywhere(const CollectiveSpec& spec) {
  auto all_empty = [](const std::vector<Block>& blocks) {
    for (const Block& b : blocks) {
      if (b.count > 0) return false;
    }
    return true;
  };
  switch (spec.kind) {
    case K::kBarrier:
      return false;
    case K::kBroadcast:
    case K::kAllReduce:
    case K::kReduce:
      return spec.count == 0;
    case K::kAllGather:
    case K::kReduceScatter:
      return all_empty(spec.blocks);  // counts every rank knows, v-forms included
    case K::kGather:
    case K::kScatter:
    case K::kAllToAll:
      return !spec.variable_counts && all_empty(spec.blocks);
  }
  return false;
}

const Algorithm& select_algorithm(const CollectiveSpec& spec) {
  const Algorithm* forced = forced_algorithms()[static_cast<int>(spec.kind)];
  if (forced != nullptr) {
    const Algorithm& wanted = *forced;
    const char* why = wanted.cannot_run ? wanted.cannot_run(spec) : nullptr;
    if (why == nullptr) return wanted;
    const Algorithm& fallback = table_choice(spec);
    static std::once_flag warned;
    std::call_once(warned, [&] {
      WEFT_LOG(WARN) << "WEFT_ALGO asks for " << collective_name(spec.kind) << ":" << wanted.name
                     << ", which " << why << " (group of " << spec.size << "): using "
                     << fallback.name << " where it cannot run";
    });
    return fallback;
  }
  return table_choice(spec);
}

Schedule build_schedule(const Algorithm& algorithm, const CollectiveSpec& spec) {
  ScheduleBuilder builder;
  if (spec.input_in_output >= 0) {
    builder.alias(Buffer::kInput, Buffer::kOutput, static_cast<uint64_t>(spec.input_in_output));
  } else if (spec.output_in_input) {
    builder.alias(Buffer::kOutput, Buffer::kInput, spec.blocks[spec.rank].offset);
  }
  algorithm.generate(spec, builder);
  return std::move(builder).finish();
}

uint64_t segment_elements(DType dtype) {
  static const uint64_t bytes =
      std::max<uint64_t>(1, base::env::get_bytes("WEFT_SEGMENT_BYTES", 1 << 20));
  return std::max<uint64_t>(1, bytes / dtype_size(dtype));
}

}  // namespace weft::collectives

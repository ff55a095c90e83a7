// The hierarchical algorithms (collectives/algorithms/hierarchical.cc) under the
// simulator: against the serial reference on uniform, uneven and interleaved host
// layouts, and what they send between hosts, up to 4096 ranks on 512 hosts.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithm_table.h"
#include "collectives/host_layout.h"
#include "tests/collectives/sim_job.h"

namespace weft::collectives::testing {
namespace {

const Algorithm& algorithm(CollectiveKind kind, const char* name) {
  const Algorithm* a = find_algorithm(kind, name);
  EXPECT_NE(a, nullptr) << name;
  return *a;
}

// `per_host[h]` ranks on host h, in blocks (host 0's ranks first) or dealt round-robin.
const HostLayout* layout(const std::vector<int>& per_host, bool interleaved = false) {
  std::vector<uint64_t> keys;
  if (interleaved) {
    std::vector<int> left = per_host;
    for (bool any = true; any;) {
      any = false;
      for (size_t h = 0; h < left.size(); ++h) {
        if (left[h] > 0) keys.push_back(h), --left[h], any = true;
      }
    }
  } else {
    for (size_t h = 0; h < per_host.size(); ++h) keys.insert(keys.end(), per_host[h], h);
  }
  return host_layout(keys);
}

std::string describe(const std::vector<int>& per_host, bool interleaved) {
  std::string s;
  for (int k : per_host) s += std::to_string(k) + " ";
  return s + (interleaved ? "interleaved" : "in blocks");
}

TEST(HostLayout, HostsInOrderOfTheirFirstRankAndNoneWhenFlat) {
  const HostLayout* l = host_layout({7, 3, 7, 3, 9});
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->host_of, (std::vector<int>{0, 1, 0, 1, 2}));
  EXPECT_EQ(l->local_index, (std::vector<int>{0, 0, 1, 1, 0}));
  EXPECT_EQ(l->members[1], (std::vector<int>{1, 3}));
  EXPECT_FALSE(l->uniform);
  EXPECT_EQ(l->with_local_index(1), (std::vector<int>{2, 3}));
  EXPECT_EQ(host_layout({7, 3, 7, 3, 9}), l);  // interned: the same object
  EXPECT_EQ(host_layout({5, 5, 5}), nullptr);  // one host
  EXPECT_EQ(host_layout({1, 2, 3}), nullptr);  // one rank per host
  EXPECT_TRUE(host_layout({1, 1, 2, 2})->uniform);
}

TEST(Hierarchical, EveryLayoutMatchesTheSerialReference) {
  const std::vector<std::vector<int>> layouts = {{2, 2}, {3, 1, 2}, {1, 4},         {4, 4, 4, 4},
                                                 {2, 3}, {5, 5, 5}, {2, 2, 2, 2, 2}};
  int cases = 0;
  for (const std::vector<int>& per_host : layouts) {
    for (bool interleaved : {false, true}) {
      const HostLayout* hosts = layout(per_host, interleaved);
      ASSERT_NE(hosts, nullptr);
      const int n = static_cast<int>(hosts->host_of.size());
      for (const char* name : {"hierarchical", "hierarchical_sliced"}) {
        for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kBroadcast,
                                    CollectiveKind::kReduce, CollectiveKind::kAllGather,
                                    CollectiveKind::kReduceScatter, CollectiveKind::kBarrier}) {
          const Algorithm* a = find_algorithm(kind, name);
          if (a == nullptr) continue;
          for (uint64_t count : {0, 1, 7, 1023}) {
            for (bool in_place : {false, true}) {
              for (bool variable : {false, true}) {
                if (variable && kind != CollectiveKind::kAllGather &&
                    kind != CollectiveKind::kReduceScatter) {
                  continue;
                }
                const bool barrier = kind == CollectiveKind::kBarrier;
                if (barrier && (count != 0 || in_place)) continue;
                for (uint64_t segment : {uint64_t{1} << 20, uint64_t{100}}) {
                  for (int root : {0, n - 1, n / 2}) {
                    const bool rooted =
                        kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce;
                    if (!rooted && root != 0) continue;
                    SimCase c{.kind = kind,
                              .size = n,
                              .count = count,
                              .root = root,
                              .in_place = in_place,
                              .variable = variable,
                              .segment = segment,
                              .hosts = hosts};
                    CollectiveSpec probe;
                    probe.hosts = hosts;
                    if (a->cannot_run(probe) != nullptr) continue;
                    EXPECT_EQ(run_sim(*a, c).mismatch, "")
                        << name << " " << collective_name(kind) << " on "
                        << describe(per_host, interleaved) << " count=" << count
                        << " in_place=" << in_place << " variable=" << variable
                        << " segment=" << segment << " root=" << root;
                    ++cases;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(Hierarchical, EveryOp) {
  const HostLayout* hosts = layout({3, 3, 2}, true);
  for (auto [kind, name] : {std::pair{CollectiveKind::kAllReduce, "hierarchical"},
                            {CollectiveKind::kAllReduce, "hierarchical_sliced"},
                            {CollectiveKind::kReduce, "hierarchical"},
                            {CollectiveKind::kReduceScatter, "hierarchical"}}) {
    const Algorithm& a = algorithm(kind, name);
    CollectiveSpec probe;
    probe.hosts = hosts;
    if (a.cannot_run(probe) != nullptr) continue;
    for (int op = 0; op < kNumReduceOps; ++op) {
      SimCase c{.kind = kind,
                .size = 8,
                .count = 37,
                .root = 5,
                .op = static_cast<ReduceOp>(op),
                .segment = 8,
                .hosts = hosts};
      EXPECT_EQ(run_sim(a, c).mismatch, "") << collective_name(kind) << ":" << name << " op " << op;
    }
  }
  // The sliced form needs the same ranks on every host; the table does not pick it
  // otherwise.
  CollectiveSpec uneven;
  uneven.hosts = hosts;
  EXPECT_NE(algorithm(CollectiveKind::kAllReduce, "hierarchical_sliced").cannot_run(uneven),
            nullptr);
}

// 512 hosts of 8 ranks, small vector: only the leaders cross hosts, each sending the
// vector once per round of recursive doubling (log2 512 = 9), where the flat algorithm
// has all 8 ranks of a host do so.
TEST(HierarchicalCost, SmallAllReduceAt4096RanksOn512Hosts) {
  const int hosts = 512, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  const uint64_t count = 2, bytes = count * 4;
  SimCase c{.kind = CollectiveKind::kAllReduce, .size = n, .count = count, .hosts = l};
  SimResult leader = run_sim(algorithm(CollectiveKind::kAllReduce, "hierarchical"), c);
  ASSERT_EQ(leader.mismatch, "");
  SimResult flat = run_sim(algorithm(CollectiveKind::kAllReduce, "recursive_doubling"), c);
  ASSERT_EQ(flat.mismatch, "");
  for (int h = 0; h < hosts; ++h) {
    EXPECT_EQ(leader.report.inter_host_bytes_sent[h], 9 * bytes) << h;
    EXPECT_EQ(flat.report.inter_host_bytes_sent[h], k * 9 * bytes) << h;
  }
  EXPECT_EQ(leader.report.inter_host_rounds, 9);
  // 3 rounds to reduce inside a host of 8, 9 between hosts, 3 to broadcast back.
  EXPECT_EQ(leader.report.rounds, 3 + 9 + 3);
}

// Large vectors, 64 hosts of 8 ranks: the sliced form sends what a ring over the hosts
// sends, 2 (H - 1) / H of the vector per host, spread over the host's 8 ranks, in
// 2 (H - 1) inter-host rounds, fewer than the flat ring over all 512 ranks, and no rank
// sends more than in that ring.
TEST(HierarchicalCost, LargeAllReduceSlicesAcross64HostsOf8) {
  const int hosts = 64, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  const uint64_t count = uint64_t{64} * n, bytes = count * 4;  // divisible: exact formulas
  SimCase c{.kind = CollectiveKind::kAllReduce, .size = n, .count = count, .hosts = l};
  SimResult sliced = run_sim(algorithm(CollectiveKind::kAllReduce, "hierarchical_sliced"), c);
  ASSERT_EQ(sliced.mismatch, "");
  SimResult ring = run_sim(algorithm(CollectiveKind::kAllReduce, "ring"), c);
  ASSERT_EQ(ring.mismatch, "");
  for (int h = 0; h < hosts; ++h) {
    EXPECT_EQ(sliced.report.inter_host_bytes_sent[h], 2 * (hosts - 1) * bytes / hosts) << h;
  }
  EXPECT_EQ(sliced.report.inter_host_rounds, 2 * (hosts - 1));
  EXPECT_LT(sliced.report.inter_host_rounds, ring.report.inter_host_rounds);
  EXPECT_LE(sliced.report.max_bytes_sent(), ring.report.max_bytes_sent());
}

// Broadcast from a rank that is not its host's leader: one message per host between
// hosts (H - 1 in all), ceil(log2 H) inter-host rounds.
TEST(HierarchicalCost, BroadcastCrossesEachHostBoundaryOnce) {
  const int hosts = 512, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  SimCase c{.kind = CollectiveKind::kBroadcast, .size = n, .count = 16, .root = 13, .hosts = l};
  SimResult r = run_sim(algorithm(CollectiveKind::kBroadcast, "hierarchical"), c);
  ASSERT_EQ(r.mismatch, "");
  uint64_t total = 0;
  for (uint64_t sent : r.report.inter_host_bytes_sent) total += sent;
  EXPECT_EQ(total, uint64_t{hosts - 1} * 16 * 4);
  EXPECT_EQ(r.report.inter_host_rounds, 9);
}

// Reduce to a rank that is not its host's leader: every other host sends the vector
// once, in ceil(log2 H) inter-host rounds.
TEST(HierarchicalCost, ReduceSendsTheVectorOnceFromEachOtherHost) {
  const int hosts = 512, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  SimCase c{.kind = CollectiveKind::kReduce, .size = n, .count = 16, .root = 13, .hosts = l};
  SimResult r = run_sim(algorithm(CollectiveKind::kReduce, "hierarchical"), c);
  ASSERT_EQ(r.mismatch, "");
  for (int h = 0; h < hosts; ++h) {
    EXPECT_EQ(r.report.inter_host_bytes_sent[h], h == 1 ? 0 : 16 * 4) << h;  // 13 is on host 1
  }
  EXPECT_EQ(r.report.inter_host_rounds, 9);
}

// all_gather on 64 hosts of 8: H - 1 inter-host steps, each host sending the blocks of
// every other host but one, as a ring over the hosts does.
TEST(HierarchicalCost, AllGatherTakesHMinus1InterHostSteps) {
  const int hosts = 64, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  const uint64_t block = 16;
  SimCase c{.kind = CollectiveKind::kAllGather, .size = n, .count = block, .hosts = l};
  SimResult r = run_sim(algorithm(CollectiveKind::kAllGather, "hierarchical"), c);
  ASSERT_EQ(r.mismatch, "");
  for (int h = 0; h < hosts; ++h) {
    EXPECT_EQ(r.report.inter_host_bytes_sent[h], uint64_t{hosts - 1} * k * block * 4) << h;
  }
  EXPECT_EQ(r.report.inter_host_rounds, hosts - 1);
}

// reduce_scatter on 64 hosts of 8: each host's leader sends (H - 1) / H of the vector
// between hosts, in H - 1 inter-host rounds (a ring over the hosts), where the flat ring
// over all 512 ranks takes more than four times as many (256 with the ranks in blocks,
// 511 with them dealt round-robin over the hosts, where every step crosses hosts).
TEST(HierarchicalCost, ReduceScatterCrossesHostsOnlyBetweenLeaders) {
  const int hosts = 64, k = 8, n = hosts * k;
  for (bool interleaved : {false, true}) {
    const HostLayout* l = layout(std::vector<int>(hosts, k), interleaved);
    const uint64_t block = 64, bytes = block * n * 4;
    SimCase c{.kind = CollectiveKind::kReduceScatter, .size = n, .count = block, .hosts = l};
    SimResult r = run_sim(algorithm(CollectiveKind::kReduceScatter, "hierarchical"), c);
    ASSERT_EQ(r.mismatch, "") << interleaved;
    SimResult ring = run_sim(algorithm(CollectiveKind::kReduceScatter, "ring"), c);
    ASSERT_EQ(ring.mismatch, "");
    for (int h = 0; h < hosts; ++h) {
      EXPECT_EQ(r.report.inter_host_bytes_sent[h], (hosts - 1) * bytes / hosts) << h;
    }
    EXPECT_EQ(r.report.inter_host_rounds, hosts - 1);
    EXPECT_GT(ring.report.inter_host_rounds, 4 * r.report.inter_host_rounds);
  }
}

// Barrier on 512 hosts of 8: only the leaders signal across hosts, ceil(log2 512) = 9
// times each, in 9 inter-host rounds. The flat dissemination barrier's 12 rounds cross
// hosts for every rank from distance 8 on, and for 1, 2 and 4 of 8 before.
TEST(HierarchicalCost, BarrierSignalsBetweenLeadersOnly) {
  const int hosts = 512, k = 8, n = hosts * k;
  const HostLayout* l = layout(std::vector<int>(hosts, k));
  SimCase c{.kind = CollectiveKind::kBarrier, .size = n, .hosts = l};
  SimResult r = run_sim(algorithm(CollectiveKind::kBarrier, "hierarchical"), c);
  ASSERT_EQ(r.mismatch, "");
  SimResult flat = run_sim(algorithm(CollectiveKind::kBarrier, "dissemination"), c);
  ASSERT_EQ(flat.mismatch, "");
  EXPECT_EQ(r.report.inter_host_rounds, 9);
  EXPECT_EQ(r.report.inter_host_messages, uint64_t{hosts} * 9);
  EXPECT_EQ(flat.report.inter_host_messages, uint64_t{n} * 9 + uint64_t{n} * 7 / 8);
}

}  // namespace
}  // namespace weft::collectives::testing

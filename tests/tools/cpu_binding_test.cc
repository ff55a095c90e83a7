#include "tools/weftrun/cpu_binding.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "weft/error.h"

namespace weft::weftrun {
namespace {

using Cpus = std::vector<int>;

// 2 cores of 2 hyperthreads each, cpus numbered the Linux way: core c holds c and c + 2.
MachineLayout two_smt_cores() { return {{{0, 2}, {1, 3}}, {{0, 1, 2, 3}}}; }

// 8 single-PU cores on 2 NUMA nodes of 4.
MachineLayout eight_cores_two_nodes() {
  MachineLayout layout;
  for (int cpu = 0; cpu < 8; ++cpu) layout.cores.push_back({cpu});
  layout.numa_nodes = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  return layout;
}

// Runs `body` on a thread of its own, so binding it leaves the test's thread alone.
template <typename Body>
void on_own_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

TEST(CpuBinding, ParsesBindTo) {
  EXPECT_EQ(parse_bind_to("core"), BindTo::kCore);
  EXPECT_EQ(parse_bind_to("numa"), BindTo::kNuma);
  EXPECT_EQ(parse_bind_to("none"), BindTo::kNone);
  EXPECT_EQ(parse_bind_to(""), std::nullopt);
  EXPECT_EQ(parse_bind_to("Core"), std::nullopt);
  EXPECT_EQ(parse_bind_to("socket"), std::nullopt);
  EXPECT_EQ(parse_bind_to("core "), std::nullopt);
}

TEST(CpuBinding, FormatsCpuLists) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({3}), "3");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(format_cpu_list({11, 8, 9, 10, 3, 0, 1, 2}), "0-3,8-11");
  EXPECT_EQ(format_cpu_list({4, 4, 5}), "4-5");
}

TEST(CpuBinding, NoneBindsNothing) {
  BindingPlan plan = plan_binding(BindTo::kNone, 4, eight_cores_two_nodes());
  EXPECT_TRUE(plan.ranks.empty());
  EXPECT_EQ(plan.warning, "");
}

TEST(CpuBinding, CoreBindingGivesEachRankAllPusOfItsCore) {
  BindingPlan plan = plan_binding(BindTo::kCore, 2, two_smt_cores());
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 2}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{1, 3}));
  EXPECT_EQ(plan.ranks[0].description, "core 0 (cpus 0,2)");
  EXPECT_EQ(plan.ranks[1].description, "core 1 (cpus 1,3)");
  EXPECT_EQ(plan.warning, "");
}

TEST(CpuBinding, CoreBindingWrapsAndWarnsWhenRanksOutnumberCores) {
  BindingPlan plan = plan_binding(BindTo::kCore, 4, two_smt_cores());
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 2}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{1, 3}));
  EXPECT_EQ(plan.ranks[2].cpus, (Cpus{0, 2}));
  EXPECT_EQ(plan.ranks[3].cpus, (Cpus{1, 3}));
  EXPECT_EQ(plan.ranks[3].description, "core 1 (cpus 1,3)");
  EXPECT_NE(plan.warning.find("4 ranks share 2 core"), std::string::npos) << plan.warning;
  EXPECT_NE(plan.warning.find("more than one rank"), std::string::npos) << plan.warning;
}

TEST(CpuBinding, CoreBindingOfFewerRanksUsesTheFirstCores) {
  BindingPlan plan = plan_binding(BindTo::kCore, 3, eight_cores_two_nodes());
  ASSERT_EQ(plan.ranks.size(), 3u);
  EXPECT_EQ(plan.ranks[2].cpus, (Cpus{2}));
  EXPECT_EQ(plan.ranks[2].description, "core 2 (cpus 2)");
  EXPECT_EQ(plan.warning, "");
}

TEST(CpuBinding, NumaBindingKeepsNeighbouringRanksOnOneNode) {
  BindingPlan plan = plan_binding(BindTo::kNuma, 4, eight_cores_two_nodes());
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(plan.ranks[2].cpus, (Cpus{4, 5, 6, 7}));
  EXPECT_EQ(plan.ranks[3].cpus, (Cpus{4, 5, 6, 7}));
  EXPECT_EQ(plan.ranks[0].description, "NUMA node 0 (cpus 0-3)");
  EXPECT_EQ(plan.ranks[3].description, "NUMA node 1 (cpus 4-7)");
  EXPECT_EQ(plan.warning, "");
}

TEST(CpuBinding, NumaBindingOfOddRankCountsSpreadsInBlocks) {
  // 3 ranks over 2 nodes: 0 * 2 / 3 = 0, 2 / 3 = 0, 4 / 3 = 1.
  BindingPlan plan = plan_binding(BindTo::kNuma, 3, eight_cores_two_nodes());
  ASSERT_EQ(plan.ranks.size(), 3u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(plan.ranks[2].cpus, (Cpus{4, 5, 6, 7}));
}

TEST(CpuBinding, NumaBindingOfFewerRanksThanNodesLeavesNodesUnused) {
  MachineLayout layout = eight_cores_two_nodes();
  layout.numa_nodes = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  BindingPlan plan = plan_binding(BindTo::kNuma, 2, layout);
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 1}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{4, 5}));
  EXPECT_EQ(plan.ranks[1].description, "NUMA node 2 (cpus 4-5)");
  EXPECT_EQ(plan.warning, "");
}

TEST(CpuBinding, NumaBindingWithoutNodesUsesOneNodeOfAllCores) {
  MachineLayout layout = two_smt_cores();
  layout.numa_nodes.clear();
  BindingPlan plan = plan_binding(BindTo::kNuma, 2, layout);
  ASSERT_EQ(plan.ranks.size(), 2u);
  EXPECT_EQ(plan.ranks[0].cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(plan.ranks[1].cpus, (Cpus{0, 1, 2, 3}));
}

TEST(CpuBinding, EmptyLayoutIsAnInvalidArgument) {
  EXPECT_THROW(plan_binding(BindTo::kCore, 2, MachineLayout{}), InvalidArgument);
  EXPECT_THROW(plan_binding(BindTo::kNuma, 2, MachineLayout{}), InvalidArgument);
  EXPECT_THROW(plan_binding(BindTo::kCore, -1, two_smt_cores()), InvalidArgument);
}

// Each cpu of `allowed` in exactly one of `groups`, and nothing else in them.
void expect_partition(const std::vector<Cpus>& groups, const Cpus& allowed, const char* what) {
  std::map<int, int> seen;
  for (const Cpus& group : groups) {
    EXPECT_FALSE(group.empty()) << what;
    for (int cpu : group) ++seen[cpu];
  }
  for (int cpu : allowed) EXPECT_EQ(seen[cpu], 1) << what << ": cpu " << cpu;
  EXPECT_EQ(seen.size(), allowed.size()) << what << " hold cpus this process may not use";
}

TEST(CpuBinding, ReadsThisMachine) {
  Cpus allowed = calling_thread_cpus();
  ASSERT_FALSE(allowed.empty());
  MachineLayout layout = read_machine_layout();
  ASSERT_FALSE(layout.cores.empty());
  ASSERT_FALSE(layout.numa_nodes.empty());
  expect_partition(layout.cores, allowed, "cores");
  expect_partition(layout.numa_nodes, allowed, "NUMA nodes");
  std::cout << "this machine: " << layout.cores.size() << " allowed core(s), "
            << layout.numa_nodes.size() << " NUMA node(s), cpus " << format_cpu_list(allowed)
            << "\n";
}

TEST(CpuBinding, ReadsOnlyTheCpusThisThreadMayUse) {
  int cpu = calling_thread_cpus().back();
  on_own_thread([cpu] {
    bind_calling_thread({cpu});
    MachineLayout layout = read_machine_layout();
    ASSERT_EQ(layout.cores.size(), 1u);
    EXPECT_EQ(layout.cores[0], (Cpus{cpu}));
    ASSERT_EQ(layout.numa_nodes.size(), 1u);
    EXPECT_EQ(layout.numa_nodes[0], (Cpus{cpu}));
  });
}

TEST(CpuBinding, BindsTheCallingThreadOnly) {
  Cpus before = calling_thread_cpus();
  int cpu = before.front();
  Cpus bound;
  on_own_thread([cpu, &bound] {
    bind_calling_thread({cpu});
    bound = calling_thread_cpus();
  });
  EXPECT_EQ(bound, (Cpus{cpu}));
  EXPECT_EQ(calling_thread_cpus(), before);
}

TEST(CpuBinding, BindsBackToTheSavedMask) {
  Cpus before = calling_thread_cpus();
  Cpus restored;
  on_own_thread([&] {
    Cpus saved = calling_thread_cpus();
    bind_calling_thread({before.back()});
    bind_calling_thread(saved);
    restored = calling_thread_cpus();
  });
  EXPECT_EQ(restored, before);
}

TEST(CpuBinding, RefusedBindingNamesTheCpus) {
  on_own_thread([] {
    try {
      bind_calling_thread({100000});
      ADD_FAILURE() << "bound to a cpu this machine does not have";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInternal);
      EXPECT_NE(std::string(e.what()).find("cpus 100000"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("sched_setaffinity"), std::string::npos) << e.what();
    }
  });
  EXPECT_THROW(bind_calling_thread({}), InvalidArgument);
}

}  // namespace
}  // namespace weft::weftrun

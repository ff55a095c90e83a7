// Cpu lists as the kernel writes them, and the NUMA node a thread's affinity puts it on:
// one node when all its cpus are on it, none when they span several or the machine
// lists no nodes.
#include "base/numa_node.h"

#include <gtest/gtest.h>

namespace {

using weft::base::format_cpu_list;
using weft::base::numa_placement;
using weft::base::parse_cpu_list;

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list(""), std::vector<int>{});
  EXPECT_EQ(parse_cpu_list("\n"), std::vector<int>{});
  EXPECT_EQ(parse_cpu_list("3,1-2,2"), (std::vector<int>{1, 2, 3}));
}

TEST(CpuList, RefusesWhatIsNotOne) {
  EXPECT_FALSE(parse_cpu_list("a"));
  EXPECT_FALSE(parse_cpu_list("1-"));
  EXPECT_FALSE(parse_cpu_list("-1"));
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("1,,2"));
}

TEST(CpuList, FormatsCompactly) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({4}), "4");
}

const std::map<int, std::vector<int>> kTwoNodes = {{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}};

TEST(NumaPlacement, CpusWithinOneNodeAreOnIt) {
  const auto p = numa_placement({4, 5}, kTwoNodes);
  EXPECT_EQ(p.node, 1);
  EXPECT_EQ(p.how, "cpus 4-5, on NUMA node 1");
}

TEST(NumaPlacement, CpusSpanningNodesAreOnNone) {
  const auto p = numa_placement({0, 1, 2, 3, 4, 5, 6, 7}, kTwoNodes);
  EXPECT_EQ(p.node, -1);
  EXPECT_EQ(p.how, "cpus 0-7 span NUMA nodes 0-1");
}

TEST(NumaPlacement, NoNodesOrNoAffinityIsUnknown) {
  EXPECT_EQ(numa_placement({0, 1}, {}).node, -1);
  EXPECT_EQ(numa_placement({0, 1}, {}).how, "cpus 0-1, on a machine that lists no NUMA nodes");
  EXPECT_EQ(numa_placement({}, kTwoNodes).node, -1);
  EXPECT_EQ(numa_placement({9}, kTwoNodes).node, -1);
}

// This machine's own answer is one of the three; it must not fail.
TEST(NumaPlacement, CallingThreadHasAnAnswer) {
  const auto p = weft::base::calling_thread_numa_placement();
  EXPECT_GE(p.node, -1);
  EXPECT_FALSE(p.how.empty());
}

}  // namespace

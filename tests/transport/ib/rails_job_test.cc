// Jobs on a host with two soft verbs devices (WEFT_TEST_SOFT_VERBS_DEVICES): four ranks
// of one host spread over the two as rails by their local index when both are equally
// near, each INFO line saying which port and why, and every pair still reaches the
// other, across rails too, since the devices share a fabric; a device on the ranks' own
// NUMA node is taken by all of them over one on another node.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "base/numa_node.h"
#include "tests/harness/byte_pattern.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using namespace std::chrono_literals;
using weft::testing::byte_pattern;
using weft::testing::expect_all_succeeded;
using weft::testing::RankResult;
using weft::testing::run_ranks;
using weft::testing::RunOptions;

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

RunOptions verbs_over(const std::string& devices) {
  RunOptions options;
  options.env = {{"WEFT_TRANSPORTS", "ib"},
                 {"WEFT_TEST_SOFT_VERBS", "1"},
                 {"WEFT_TEST_SOFT_VERBS_DEVICES", devices},
                 {"WEFT_DEBUG", "INFO"}};
  return options;
}

// A sum over everyone, and a large message (RDMA WRITEs) to the next rank and from the
// one before, which sits on the other rail.
void exchange(int rank) {
  weft::init_process_group();
  const int size = weft::get_world_size();
  int64_t sum = rank;
  weft::all_reduce(weft::view(std::span(&sum, 1)));
  EXPECT_EQ(sum, size * (size - 1) / 2);
  const size_t bytes = (1 << 20) + 3;
  const std::vector<uint8_t> mine = byte_pattern(bytes, rank);
  std::vector<uint8_t> theirs(bytes);
  const int from = (rank + size - 1) % size;
  weft::Request r = weft::irecv(weft::view(theirs), from, 1);
  weft::send(weft::view(mine), (rank + 1) % size, 1);
  r.wait(60s);
  EXPECT_TRUE(theirs == byte_pattern(bytes, from)) << "the message from rank " << from;
  weft::destroy_process_group();
}

TEST(Rails, FourRanksOfAHostSpreadOverTwoEquallyNearDevices) {
  // Neither device says where it is attached, so both are near every rank.
  auto ranks = run_ranks(4, exchange, verbs_over("softib0,softib1"));
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    const int rail = r.rank % 2;
    const std::string mine = "softib" + std::to_string(rail) + ":1";
    const std::string other = "softib" + std::to_string(1 - rail) + ":1";
    const std::string rank = std::to_string(r.rank);
    EXPECT_EQ(
        count(r.output, "rank " + rank + ": verbs port " + mine + " (NUMA node unknown), since "),
        1)
        << r.output;
    EXPECT_EQ(count(r.output, "local rank " + rank + " takes rail " + rank +
                                  " mod 2 = " + std::to_string(rail) + " of them"),
              1)
        << r.output;
    // Every link of the rank goes out of its own rail, whichever rail the peer is on.
    EXPECT_EQ(count(r.output, ": ib " + mine + " qpn "), 3) << r.output;
    EXPECT_EQ(count(r.output, ": ib " + other + " qpn "), 0) << r.output;
  }
}

TEST(Rails, TheDeviceOnTheRanksNumaNodeIsTakenByAll) {
  // The ranks inherit this process's CPU affinity, and so its NUMA node.
  const weft::base::NumaPlacement here = weft::base::calling_thread_numa_placement();
  if (here.node < 0) GTEST_SKIP() << "this process is on no single NUMA node: " << here.how;
  const std::string node = std::to_string(here.node);
  const std::string elsewhere = std::to_string(here.node + 1);
  auto ranks = run_ranks(4, exchange, verbs_over("softib0:" + elsewhere + ",softib1:" + node));
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    EXPECT_EQ(
        count(r.output, "rank " + std::to_string(r.rank) + ": verbs port softib1:1 (NUMA node " +
                            node + "), since 1 of 2 usable ports is on this rank's NUMA node " +
                            node + " (this rank: cpus "),
        1)
        << r.output;
    EXPECT_EQ(count(r.output, ": ib softib1:1 qpn "), 3) << r.output;
  }
}

}  // namespace

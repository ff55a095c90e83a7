// Every algorithm, run by the simulator for many group sizes, counts, roots and ops,
// checked against a serial reference; and the textbook costs of the main ones.
#include <gtest/gtest.h>

#include <cmath>

#include "collectives/algorithm_table.h"
#include "tests/collectives/sim_job.h"

namespace weft::collectives::testing {
namespace {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

bool runs(const Algorithm& a, const SimCase& c) {
  CollectiveSpec probe;
  probe.kind = c.kind;
  probe.size = c.size;
  probe.variable_counts = c.variable;
  return a.cannot_run == nullptr || a.cannot_run(probe) == nullptr;
}

TEST(Simulator, EveryAlgorithmMatchesTheSerialReference) {
  int cases = 0;
  for (const Algorithm& a : all_algorithms()) {
    // Those of the shared-memory arena have no schedule: collectives_test runs them.
    if (a.generate == nullptr) continue;
    for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 16}) {
      for (uint64_t count : {0, 1, 7, 1023}) {
        for (bool in_place : {false, true}) {
          for (uint64_t segment : {uint64_t{1} << 20, uint64_t{100}}) {
            SimCase c{.kind = a.kind,
                      .size = n,
                      .count = count,
                      .root = n / 2,
                      .op = ReduceOp::kSum,
                      .in_place = in_place,
                      .segment = segment};
            bool variable_ok =
                a.kind == CollectiveKind::kAllGather || a.kind == CollectiveKind::kGather ||
                a.kind == CollectiveKind::kScatter || a.kind == CollectiveKind::kReduceScatter;
            for (bool variable : {false, true}) {
              if (variable && !variable_ok) continue;
              c.variable = variable;
              if (!runs(a, c)) continue;
              SimResult result = run_sim(a, c);
              EXPECT_EQ(result.mismatch, "")
                  << collective_name(a.kind) << ":" << a.name << " n=" << n << " count=" << count
                  << " in_place=" << in_place << " segment=" << segment << " variable=" << variable;
              ++cases;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(Simulator, ReductionsWithEveryOp) {
  for (const Algorithm& a : all_algorithms()) {
    if (a.generate == nullptr) continue;  // the arena's: see above
    if (a.kind != CollectiveKind::kAllReduce && a.kind != CollectiveKind::kReduce &&
        a.kind != CollectiveKind::kReduceScatter) {
      continue;
    }
    for (int op = 0; op < kNumReduceOps; ++op) {
      for (int n : {3, 6, 8}) {
        SimCase c{.kind = a.kind,
                  .size = n,
                  .count = 37,
                  .root = 1,
                  .op = static_cast<ReduceOp>(op),
                  .segment = 8};
        if (!runs(a, c)) continue;
        EXPECT_EQ(run_sim(a, c).mismatch, "")
            << collective_name(a.kind) << ":" << a.name << " op " << op << " n=" << n;
      }
    }
  }
}

const Algorithm& algorithm(CollectiveKind kind, const char* name) {
  const Algorithm* a = find_algorithm(kind, name);
  EXPECT_NE(a, nullptr) << name;
  return *a;
}

TEST(SimulatorCost, RingAllReduceSendsTwiceTheDataOverNAndTakes2NMinus2Rounds) {
  for (int n : {2, 5, 8, 64, 256}) {
    uint64_t count = 1024 * n;  // divisible by n: the formula is exact
    SimResult r = run_sim(algorithm(CollectiveKind::kAllReduce, "ring"),
                          {.kind = CollectiveKind::kAllReduce, .size = n, .count = count});
    EXPECT_EQ(r.mismatch, "");
    uint64_t bytes = count * 4;
    for (uint64_t sent : r.report.bytes_sent) EXPECT_EQ(sent, 2 * (n - 1) * bytes / n) << n;
    EXPECT_EQ(r.report.rounds, 2 * (n - 1)) << n;
  }
}

TEST(SimulatorCost, RingAt4096RanksFromOneRanksSchedule) {
  // Simulating 4096 ranks of a ring means 33 million operations; the cost per rank
  // follows from one rank's schedule.
  const int n = 4096;
  CollectiveSpec spec{.kind = CollectiveKind::kAllReduce,
                      .dtype = DType::kInt32,
                      .size = n,
                      .rank = 17,
                      .count = uint64_t{16} * n,
                      .segment = 1 << 20};
  Schedule s = build_schedule(algorithm(CollectiveKind::kAllReduce, "ring"), spec);
  uint64_t sent = 0, messages = 0;
  for (const Op& op : s.ops) {
    if (op.type == OpType::kSend) {
      sent += op.a.count * 4;
      ++messages;
    }
  }
  EXPECT_EQ(sent, 2 * (n - 1) * spec.count * 4 / n);
  EXPECT_EQ(messages, 2u * (n - 1));
}

// Rounds count messages along the longest dependent chain, with a rank free to send to
// several peers at once: a binomial tree then takes its depth, ceil(log2 n) for a
// power of two and at most that otherwise.
void expect_log_rounds(int rounds, int n) {
  if ((n & (n - 1)) == 0) {
    EXPECT_EQ(rounds, ceil_log2(n)) << n;
  } else {
    EXPECT_LE(rounds, ceil_log2(n)) << n;
    EXPECT_GE(rounds, ceil_log2(n) - 1) << n;
  }
}

TEST(SimulatorCost, TreesTakeCeilLog2Rounds) {
  for (int n : {2, 3, 100, 1000, 4096}) {
    SimResult b = run_sim(algorithm(CollectiveKind::kBroadcast, "binomial"),
                          {.kind = CollectiveKind::kBroadcast, .size = n, .count = 3, .root = 1});
    EXPECT_EQ(b.mismatch, "");
    expect_log_rounds(b.report.rounds, n);
    SimResult red = run_sim(algorithm(CollectiveKind::kReduce, "binomial"),
                            {.kind = CollectiveKind::kReduce, .size = n, .count = 3, .root = 2});
    EXPECT_EQ(red.mismatch, "");
    expect_log_rounds(red.report.rounds, n);
    SimResult g = run_sim(algorithm(CollectiveKind::kGather, "binomial"),
                          {.kind = CollectiveKind::kGather, .size = n, .count = 2, .root = 0});
    EXPECT_EQ(g.mismatch, "");
    expect_log_rounds(g.report.rounds, n);
    SimResult barrier = run_sim(algorithm(CollectiveKind::kBarrier, "dissemination"),
                                {.kind = CollectiveKind::kBarrier, .size = n});
    EXPECT_EQ(barrier.report.rounds, ceil_log2(n)) << n;
    if (n <= 1000) {  // Bruck ends with n local copies per rank: n^2 in all
      SimResult bruck = run_sim(algorithm(CollectiveKind::kAllGather, "bruck"),
                                {.kind = CollectiveKind::kAllGather, .size = n, .count = 1});
      EXPECT_EQ(bruck.mismatch, "");
      expect_log_rounds(bruck.report.rounds, n);
      EXPECT_EQ(bruck.report.max_messages_sent(), uint64_t(ceil_log2(n))) << n;
    }
  }
}

TEST(SimulatorCost, RecursiveDoublingTakesLog2RoundsPlusTwoToFold) {
  for (int n : {2, 4096, 4095, 1000, 6}) {
    int p = 1 << static_cast<int>(std::floor(std::log2(n)));
    SimResult r = run_sim(algorithm(CollectiveKind::kAllReduce, "recursive_doubling"),
                          {.kind = CollectiveKind::kAllReduce, .size = n, .count = 2});
    EXPECT_EQ(r.mismatch, "");
    EXPECT_EQ(r.report.rounds, ceil_log2(p) + (p == n ? 0 : 2)) << n;
  }
}

TEST(SimulatorCost, RabenseifnerSendsLikeARingInLogarithmicRounds) {
  for (int n : {4, 64, 1024}) {
    uint64_t count = 64 * n;
    SimResult r = run_sim(algorithm(CollectiveKind::kAllReduce, "rabenseifner"),
                          {.kind = CollectiveKind::kAllReduce, .size = n, .count = count});
    EXPECT_EQ(r.mismatch, "");
    EXPECT_EQ(r.report.rounds, 2 * ceil_log2(n));
    for (uint64_t sent : r.report.bytes_sent) EXPECT_EQ(sent, 2 * (n - 1) * count * 4 / n);
  }
}

TEST(SimulatorCost, DoubleBinaryTreeIsLogarithmicAndMovesTheVectorOncePerDirection) {
  for (int n : {2, 3, 8, 13, 256, 4096}) {
    uint64_t count = 64;
    SimResult r =
        run_sim(algorithm(CollectiveKind::kAllReduce, "double_binary_tree"),
                {.kind = CollectiveKind::kAllReduce, .size = n, .count = count, .segment = 32});
    EXPECT_EQ(r.mismatch, "") << n;
    // Up and down each tree of depth <= log2(n) + 1, plus one segment of pipeline.
    EXPECT_LE(r.report.rounds, 2 * (ceil_log2(n) + 1) + 1) << n;
    // An inner node of one tree sends its half up once and down to at most two
    // children, and as a leaf of the other its other half up: at most twice the vector.
    EXPECT_LE(r.report.max_bytes_sent(), count * 4 * 2) << n;
  }
}

TEST(SimulatorCost, ChainBroadcastPipelinesSegments) {
  const int n = 16;
  const uint64_t count = 1000, segment = 100;
  SimResult r =
      run_sim(algorithm(CollectiveKind::kBroadcast, "chain"), {.kind = CollectiveKind::kBroadcast,
                                                               .size = n,
                                                               .count = count,
                                                               .root = 3,
                                                               .segment = segment});
  EXPECT_EQ(r.mismatch, "");
  // Segments travel down the chain one behind the other, each n - 1 hops.
  EXPECT_EQ(r.report.rounds, n - 1);
  EXPECT_EQ(r.report.max_bytes_sent(), count * 4);
  EXPECT_EQ(r.report.max_messages_sent(), count / segment);
}

TEST(SimulatorCost, PairwiseAllToAllSendsOneMessagePerPeer) {
  const int n = 64;
  SimResult r = run_sim(algorithm(CollectiveKind::kAllToAll, "pairwise"),
                        {.kind = CollectiveKind::kAllToAll, .size = n, .count = 5});
  EXPECT_EQ(r.mismatch, "");
  for (uint64_t m : r.report.messages_sent) EXPECT_EQ(m, uint64_t{n - 1});
  EXPECT_EQ(r.report.rounds, 1);
}

TEST(SimulatorCost, ReduceScatterRingSendsNMinus1OverNOfTheInput) {
  const int n = 8;
  SimResult r = run_sim(algorithm(CollectiveKind::kReduceScatter, "ring"),
                        {.kind = CollectiveKind::kReduceScatter, .size = n, .count = 100});
  EXPECT_EQ(r.mismatch, "");
  for (uint64_t sent : r.report.bytes_sent) EXPECT_EQ(sent, (n - 1) * 100u * 4);
  EXPECT_EQ(r.report.rounds, n - 1);
}

}  // namespace
}  // namespace weft::collectives::testing

// weft-bench runs end to end under weftrun: pingpong and the collective tables, one
// row per size with every field present and no wrong results, and clear refusals.
// (How fast it is belongs in docs/BENCHMARKS.md, not in a test.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/tools/weftrun_process.h"

namespace {

using weft::weftrun::testing::kWeftrun;
using weft::weftrun::testing::run_weftrun;

constexpr char kWeftBench[] = "tools/bench/weft-bench";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The same version as weftrun's: both print weft::kVersion. (weft-bench answers
// --version before it joins any job.)
TEST(WeftBench, PrintsWeftsVersionAsWeftrunDoes) {
  auto bench = run_weftrun({"-n", "1", "--no-prefix", kWeftBench, "--version"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_match(bench.out, m, std::regex(R"(weft-bench \(weft\) (\d+\.\d+\.\d+)\n)")))
      << bench.out;
  auto weftrun = run_weftrun({"--version"});
  EXPECT_EQ(weftrun.out, "weftrun (weft) " + m[1].str() + "\n");
}

TEST(WeftBench, PingpongWritesOneCorrectRowPerSize) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string json = std::string(tmp ? tmp : "/tmp") + "/pingpong.json";
  auto result = run_weftrun(
      {"-n", "2", kWeftBench, "pingpong", "--max-bytes", "256K", "--iters", "40", "--json", json},
      {}, std::chrono::seconds(120));
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("weft_us"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("allocs/rt"), std::string::npos) << result.out;

  ASSERT_TRUE(std::ifstream(json)) << "no " << json;
  std::string doc = read_file(json);
  std::regex row(
      R"re(\{"bytes": (\d+), "weft_us": ([0-9.]+), "baseline_us": ([0-9.]+), "weft_gbps": ([0-9.]+), "baseline_gbps": ([0-9.]+), "wrong": (\d+), "allocs_per_round_trip": ([0-9.]+), "window_allocs_per_message": ([0-9.]+)\})re");
  uint64_t expected_bytes = 1;
  int rows = 0;
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it, ++rows) {
    EXPECT_EQ(std::stoull((*it)[1]), expected_bytes);
    EXPECT_GT(std::stod((*it)[2]), 0.0);
    EXPECT_GT(std::stod((*it)[3]), 0.0);
    EXPECT_EQ((*it)[6], "0") << "corrupted bytes at " << expected_bytes;
    expected_bytes *= 2;
  }
  EXPECT_EQ(rows, 19) << doc;  // 1 B to 256 KiB
}

TEST(WeftBench, RefusesAWorldOtherThanTwo) {
  auto result = run_weftrun({"-n", "3", kWeftBench, "pingpong"}, {}, std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("needs exactly 2 ranks"), std::string::npos) << result.err;
}

// Every collective, dtype and op at 2 and 3 ranks: #wrong is 0 in every row, and the
// JSON carries the nccl-tests columns.
TEST(WeftBench, CollectiveTablesHaveNoWrongResults) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const char* collectives[] = {"all_reduce", "broadcast", "reduce",         "all_gather",
                               "gather",     "scatter",   "reduce_scatter", "all_to_all"};
  for (const char* ranks : {"2", "3"}) {
    for (const char* collective : collectives) {
      std::string json = std::string(tmp ? tmp : "/tmp") + "/" + collective + ".json";
      auto result = run_weftrun(
          {"-n", ranks, kWeftBench, collective, "-b",  "8",  "-e",  "64K", "-f", "64",     "-n",
           "2",  "-w",  "1",        "-d",       "all", "-o", "all", "-r",  "1",  "--json", json},
          {}, std::chrono::seconds(120));
      ASSERT_EQ(result.exit_code, 0) << collective << "\n" << result.out << result.err;
      EXPECT_NE(result.out.find("#wrong"), std::string::npos) << result.out;
      EXPECT_NE(result.out.find("allocs/op"), std::string::npos) << result.out;
      std::string doc = read_file(json);
      std::regex row(
          R"re(\{"bytes": (\d+), "count": (\d+), "type": "(\w+)", "redop": "(\w+)", "root": (-?\d+), "oop_us": ([0-9.]+), "ip_us": ([0-9.]+), "oop_algbw": [0-9.]+, "oop_busbw": [0-9.]+, "ip_algbw": [0-9.]+, "ip_busbw": [0-9.]+, "oop_wrong": (\d+), "ip_wrong": (\d+), "bound_us": [0-9.]+, "nccl_us": [0-9.]+, "allocs_per_op": [0-9.]+, "oop_p50_us": ([0-9.]+), "oop_p99_us": ([0-9.]+), "oop_max_us": ([0-9.]+)\})re");
      int rows = 0;
      for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it, ++rows) {
        EXPECT_EQ((*it)[8], "0") << collective << " " << (*it)[3] << " " << (*it)[4];
        EXPECT_EQ((*it)[9], "0") << collective << " " << (*it)[3] << " " << (*it)[4];
        EXPECT_GT(std::stod((*it)[6]), 0.0);
        // The spread of single calls (a second batch, timed call by call) is ordered.
        const double p50 = std::stod((*it)[10]), p99 = std::stod((*it)[11]),
                     max = std::stod((*it)[12]);
        EXPECT_GT(p50, 0.0);
        EXPECT_LE(p50, p99);
        EXPECT_LE(p99, max);
      }
      // Three sizes (8 B, 512 B, 32 KiB) per dtype, and per op where the collective
      // reduces: 5 ops on floating dtypes, 8 on integer ones.
      bool reduces = std::string(collective).find("reduce") != std::string::npos;
      EXPECT_EQ(rows, reduces ? 3 * (4 * 5 + 6 * 8) : 3 * 10) << collective << "\n" << doc;
    }
  }
}

TEST(WeftBench, RefusesAnUnknownTypeOrOp) {
  auto result = run_weftrun({"-n", "2", kWeftBench, "all_reduce", "-d", "quad"}, {},
                            std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("-d quad: unknown type"), std::string::npos) << result.err;
}

}  // namespace

// weft-bench pingpong runs end to end under weftrun: one row per size, every field
// present, no corrupted bytes, and a clear refusal when started with the wrong number of
// ranks. (How fast it is belongs in docs/BENCHMARKS.md, not in a test.)
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

TEST(WeftBench, PingpongWritesOneCorrectRowPerSize) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string json = std::string(tmp ? tmp : "/tmp") + "/pingpong.json";
  auto result = run_weftrun(
      {"-n", "2", kWeftBench, "pingpong", "--max-bytes", "256K", "--iters", "40", "--json", json},
      {}, std::chrono::seconds(120));
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("weft_us"), std::string::npos) << result.out;

  std::ifstream in(json);
  ASSERT_TRUE(in) << "no " << json;
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  std::regex row(
      R"re(\{"bytes": (\d+), "weft_us": ([0-9.]+), "baseline_us": ([0-9.]+), "weft_gbps": ([0-9.]+), "baseline_gbps": ([0-9.]+), "wrong": (\d+)\})re");
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

}  // namespace

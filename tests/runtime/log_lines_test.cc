// What WEFT_DEBUG=INFO and TRACE say about collective calls: at INFO the algorithm of
// the first call of each collective, algorithm and size class, once, however many
// calls a loop makes; at TRACE every call.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::RunOptions;

constexpr int kCalls = 20;

void all_reduce_in_a_loop(int) {
  weft::init_process_group();
  std::vector<float> large(1024, 1.0f), small(1, 1.0f);
  for (int i = 0; i < kCalls; ++i) {
    weft::all_reduce(weft::view(large));
    weft::all_reduce(weft::view(small));
  }
  weft::destroy_process_group();
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

RunOptions with_log_level(const char* level) {
  RunOptions o;
  o.env = {{"WEFT_DEBUG", level}};
  return o;
}

TEST(LogLines, InfoNamesEachKindOfCollectiveCallOnce) {
  auto ranks = run_ranks(2, all_reduce_in_a_loop, with_log_level("INFO"));
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, "1024 x float32): algorithm "), 1) << r.output;
    EXPECT_EQ(count(r.output, ", 1 x float32): algorithm "), 1) << r.output;
    EXPECT_EQ(count(r.output, "(the first all_reduce of 4096 to 8191 bytes here;"), 1) << r.output;
    EXPECT_EQ(count(r.output, " weft TRACE "), 0) << r.output;
  }
}

TEST(LogLines, TraceNamesEveryCollectiveCall) {
  auto ranks = run_ranks(2, all_reduce_in_a_loop, with_log_level("TRACE"));
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, "1024 x float32): algorithm "), kCalls) << r.output;
    EXPECT_EQ(count(r.output, ", 1 x float32): algorithm "), kCalls) << r.output;
  }
}

}  // namespace

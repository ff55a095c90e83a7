// Checks shared by the init_process_group tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {

// Exchanges one value with the neighbours, proving the job is connected.
inline void ring_check(int rank, int size) {
  int32_t token = rank, got = -1;
  weft::Request s = weft::isend(weft::view(std::span(&token, 1)), (rank + 1) % size);
  weft::recv(weft::view(std::span(&got, 1)), (rank + size - 1) % size);
  s.wait();
  EXPECT_EQ(got, (rank + size - 1) % size);
}

template <typename E>
void expect_init_error(const std::function<void()>& init, const std::vector<std::string>& texts) {
  try {
    init();
    ADD_FAILURE() << "init_process_group succeeded";
    weft::destroy_process_group();
  } catch (const E& e) {
    for (const auto& t : texts)
      EXPECT_NE(std::string(e.what()).find(t), std::string::npos) << e.what();
  }
}

// The sum over the job of 1 << rank: 2^n - 1 exactly when the n ranks are distinct.
inline int32_t rank_bits() {
  int32_t bits = 1 << weft::get_rank();
  weft::all_reduce(weft::view(std::span(&bits, 1)));
  return bits;
}

// For more processes than a world of `world_size` holds, each of which printed
// "assembled" or "refused": some were refused, and the others formed one whole job.
inline void expect_one_job_or_none(const std::vector<RankResult>& ranks, int world_size) {
  int assembled = 0, refused = 0;
  for (const auto& r : ranks) {
    assembled += r.output.find("assembled\n") != std::string::npos;
    refused += r.output.find("refused\n") != std::string::npos;
  }
  EXPECT_GE(refused, 1);
  EXPECT_TRUE(assembled == 0 || assembled == world_size) << assembled << " assembled";
  EXPECT_EQ(assembled + refused, static_cast<int>(ranks.size()));
}

}  // namespace weft::testing

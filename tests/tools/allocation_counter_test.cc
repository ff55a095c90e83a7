// allocation_counter counts every form of operator new and the malloc family, once
// each, and nothing else.
#include "tools/bench/allocation_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace weft::bench {
namespace {

// Keeps the compiler from eliding an allocation whose result nothing reads.
template <typename T>
void keep(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

TEST(AllocationCounter, CountsEachAllocationOnce) {
  uint64_t before = allocations();
  auto* one = new int(1);
  keep(one);
  auto* many = new int[8];
  keep(many);
  auto* aligned = new (std::align_val_t{64}) int;
  keep(aligned);
  void* raw = std::malloc(16);
  keep(raw);
  raw = std::realloc(raw, 4096);
  keep(raw);
  void* zeroed = std::calloc(4, 4);
  keep(zeroed);
  EXPECT_EQ(allocations() - before, 6u);

  before = allocations();
  delete one;
  delete[] many;
  ::operator delete (aligned, std::align_val_t{64});
  std::free(raw);
  std::free(zeroed);
  EXPECT_EQ(allocations() - before, 0u) << "freeing is not an allocation";
}

TEST(AllocationCounter, PerOperationDividesByTheOperations) {
  std::vector<std::unique_ptr<int>> kept;
  kept.reserve(10);
  double per = allocations_per_operation(10, [&] {
    for (int i = 0; i < 10; ++i) kept.push_back(std::make_unique<int>(i));
  });
  EXPECT_DOUBLE_EQ(per, 1.0);
  EXPECT_DOUBLE_EQ(allocations_per_operation(5, [] {}), 0.0);
}

}  // namespace
}  // namespace weft::bench

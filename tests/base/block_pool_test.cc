// The block pool: blocks are reused, within a thread and across threads, and a block
// dropped by another thread than the one that took it is not lost or handed out twice.
#include "base/block_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace {

namespace block_pool = weft::base::block_pool;

struct Pooled {
  WEFT_BLOCK_POOLED(Pooled)
  char bytes[200];
};

TEST(BlockPool, AGivenBackBlockIsTakenAgain) {
  void* first = block_pool::take();
  std::memset(first, 0xab, block_pool::kBlockBytes);  // the whole block is the caller's
  block_pool::give_back(first);
  void* second = block_pool::take();
  EXPECT_EQ(second, first);
  block_pool::give_back(second);
}

TEST(BlockPool, BlocksTakenAtOnceAreDistinct) {
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(block_pool::take());
  EXPECT_EQ(std::set<void*>(blocks.begin(), blocks.end()).size(), blocks.size());
  for (void* b : blocks) block_pool::give_back(b);
}

TEST(BlockPool, BlocksDroppedByAnotherThreadComeBackDistinct) {
  // One thread takes, another drops, many times over: the dropping thread passes what
  // it collects on to the process's list, from which the taker gets them back.
  for (int round = 0; round < 20; ++round) {
    std::vector<void*> blocks;
    for (int i = 0; i < 300; ++i) blocks.push_back(block_pool::take());
    std::thread dropper([&] {
      for (void* b : blocks) block_pool::give_back(b);
    });
    dropper.join();
  }
  std::vector<void*> again;
  for (int i = 0; i < 300; ++i) again.push_back(block_pool::take());
  EXPECT_EQ(std::set<void*>(again.begin(), again.end()).size(), again.size());
  for (void* b : again) block_pool::give_back(b);
}

TEST(BlockPool, APooledClassUsesTheBlocks) {
  auto* a = new Pooled;
  void* where = a;
  delete a;
  void* block = block_pool::take();
  EXPECT_EQ(block, where);
  block_pool::give_back(block);
}

}  // namespace

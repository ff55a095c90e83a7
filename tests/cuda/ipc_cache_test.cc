// IpcCache (cuda/ipc_cache.h) over the fake runtime, which, unlike CUDA, lets a process
// open its own exports.
#include "cuda/ipc_cache.h"

#include <gtest/gtest.h>

#include "tests/cuda/fake_device_runtime.h"
#include "weft/error.h"

namespace weft::testing {
namespace {

struct Allocation {
  FakeDeviceRuntime& fake;
  void* base;
  cuda::IpcMemHandle handle;
  Allocation(FakeDeviceRuntime& fake, int device)
      : fake(fake),
        base(fake.allocate_device(4096, device)),
        handle(fake.export_memory(base, device)) {}
  ~Allocation() { fake.free_device(base, 0); }
};

TEST(IpcCache, OpensEachHandleOnceAndMapsTheSameMemory) {
  FakeDeviceRuntime fake(1);
  cuda::IpcCache cache(fake, 8);
  Allocation a(fake, 0);
  static_cast<int*>(a.base)[5] = 42;
  auto first = cache.open(a.handle, 0);
  auto second = cache.open(a.handle, 0);
  EXPECT_EQ(first->base, second->base);
  EXPECT_EQ(cache.opens(), 1u);
  EXPECT_EQ(reinterpret_cast<int*>(first->base)[5], 42);  // the peer's memory, mapped
}

TEST(IpcCache, EvictsTheLeastRecentlyUsedBeyondItsCapacity) {
  FakeDeviceRuntime fake(1);
  cuda::IpcCache cache(fake, 2);
  Allocation a(fake, 0), b(fake, 0), c(fake, 0);
  cache.open(a.handle, 0);
  cache.open(b.handle, 0);
  cache.open(a.handle, 0);  // a is now the most recent
  cache.open(c.handle, 0);  // evicts b
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(fake.open_mappings(), 2);
  cache.open(a.handle, 0);
  EXPECT_EQ(cache.opens(), 3u);  // a stayed cached
  cache.open(b.handle, 0);
  EXPECT_EQ(cache.opens(), 4u);  // b had to be opened again
}

TEST(IpcCache, AnEvictedMappingInUseStaysOpenUntilItsUserLetsGo) {
  FakeDeviceRuntime fake(1);
  cuda::IpcCache cache(fake, 1);
  Allocation a(fake, 0), b(fake, 0);
  static_cast<int*>(a.base)[0] = 7;
  auto in_use = cache.open(a.handle, 0);
  cache.open(b.handle, 0);  // evicts a from the cache
  EXPECT_EQ(fake.open_mappings(), 2);
  EXPECT_EQ(reinterpret_cast<int*>(in_use->base)[0], 7);
  in_use.reset();
  EXPECT_EQ(fake.open_mappings(), 1);
}

TEST(IpcCache, AFailedOpenLetsGoOfTheCachedMappingsAndTriesAgain) {
  FakeDeviceRuntime fake(1);
  cuda::IpcCache cache(fake, 8);
  Allocation a(fake, 0), b(fake, 0), c(fake, 0);
  auto in_use = cache.open(a.handle, 0);
  cache.open(b.handle, 0);
  fake.fail_next_opens(1);
  cache.open(c.handle, 0);
  EXPECT_EQ(cache.size(), 1u);         // only c is cached now
  EXPECT_EQ(fake.open_mappings(), 2);  // c, and a while its user holds it
  fake.fail_next_opens(2);
  EXPECT_THROW(cache.open(b.handle, 0), Error);  // a second failure is the caller's
}

TEST(IpcCache, KeysOnTheDeviceAsWellAsTheHandle) {
  FakeDeviceRuntime fake(2);
  cuda::IpcCache cache(fake, 8);
  Allocation a(fake, 0);
  cache.open(a.handle, 0);
  cache.open(a.handle, 1);
  EXPECT_EQ(cache.opens(), 2u);
}

}  // namespace
}  // namespace weft::testing

// RegistrationCache over the soft verbs device: without keeping, a registration per use,
// given back after it; with keeping, reuse for any range a kept registration covers with
// enough access, and eviction of the least recently used beyond the entry and byte
// limits, never of one in use.
#include "transport/ib/registration_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "transport/ib/verbs_context.h"

namespace weft::transport::ib {
namespace {

constexpr int kTarget = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

struct Device {
  Device() { context = VerbsContext::open(weft::testing::soft_verbs_api(), "softib0", 1, 1, {}); }
  std::shared_ptr<VerbsContext> context;
};

TEST(RegistrationCache, WithoutKeepingEachUseRegistersAndGivesBack) {
  Device d;
  RegistrationCache cache(d.context->api(), d.context->pd(), {});
  std::vector<char> buffer(4096);
  std::string why;
  for (int i = 0; i < 3; ++i) {
    Registration r = cache.acquire(buffer.data(), buffer.size(), kTarget, &why);
    ASSERT_TRUE(r) << why;
    EXPECT_NE(r.rkey(), 0u);
    cache.release(r);
    EXPECT_FALSE(r);
  }
  EXPECT_EQ(cache.registrations_made(), 3u);
  EXPECT_EQ(cache.kept_entries(), 0u);
}

TEST(RegistrationCache, KeptRegistrationsServeRangesTheyCover) {
  Device d;
  RegistrationCache cache(d.context->api(), d.context->pd(), {true, 8, 1 << 20});
  std::vector<char> buffer(8192);
  std::string why;
  Registration whole = cache.acquire(buffer.data(), buffer.size(), kTarget, &why);
  ASSERT_TRUE(whole) << why;
  const uint32_t rkey = whole.rkey();
  cache.release(whole);
  // A part of it, for writing into or only for reading: the same registration.
  Registration part = cache.acquire(buffer.data() + 100, 1000, kTarget, &why);
  Registration read = cache.acquire(buffer.data() + 5000, 3192, 0, &why);
  EXPECT_EQ(part.rkey(), rkey);
  EXPECT_EQ(read.rkey(), rkey);
  cache.release(part);
  cache.release(read);
  EXPECT_EQ(cache.registrations_made(), 1u);
  // Beyond its end, or with more access than it has: registered anew.
  Registration beyond = cache.acquire(buffer.data() + 100, 8092, kTarget, &why);
  EXPECT_EQ(beyond.rkey(), rkey);  // [100, 8192) is inside
  cache.release(beyond);
  std::vector<char> other(100);
  Registration read_only = cache.acquire(other.data(), other.size(), 0, &why);
  const uint32_t read_only_key = read_only.rkey();
  cache.release(read_only);
  Registration writable = cache.acquire(other.data(), other.size(), kTarget, &why);
  EXPECT_NE(writable.rkey(), read_only_key);
  cache.release(writable);
  EXPECT_EQ(cache.registrations_made(), 3u);
  EXPECT_EQ(cache.kept_entries(), 3u);
}

TEST(RegistrationCache, EvictsTheLeastRecentlyUsedBeyondItsLimits) {
  Device d;
  RegistrationCache cache(d.context->api(), d.context->pd(), {true, 2, 1 << 20});
  std::vector<std::vector<char>> buffers(3, std::vector<char>(1000));
  std::string why;
  auto use = [&](int b) {
    Registration r = cache.acquire(buffers[b].data(), 1000, kTarget, &why);
    EXPECT_TRUE(r) << why;
    cache.release(r);
  };
  use(0);
  use(1);
  use(0);  // 1 is now the least recently used
  use(2);  // evicts 1
  EXPECT_EQ(cache.kept_entries(), 2u);
  EXPECT_EQ(cache.evictions(), 1u);
  const uint64_t made = cache.registrations_made();
  use(0);
  use(2);
  EXPECT_EQ(cache.registrations_made(), made);  // both kept
  use(1);
  EXPECT_EQ(cache.registrations_made(), made + 1);  // registered again
  EXPECT_EQ(cache.evictions(), 2u);

  // The byte limit: 1500 bytes hold one of them.
  RegistrationCache small(d.context->api(), d.context->pd(), {true, 100, 1500});
  for (int b = 0; b < 3; ++b) {
    Registration r = small.acquire(buffers[b].data(), 1000, kTarget, &why);
    small.release(r);
  }
  EXPECT_EQ(small.kept_entries(), 1u);
  EXPECT_EQ(small.kept_bytes(), 1000u);
  EXPECT_EQ(small.evictions(), 2u);
}

TEST(RegistrationCache, NeverEvictsWhatIsInUse) {
  Device d;
  RegistrationCache cache(d.context->api(), d.context->pd(), {true, 1, 1 << 20});
  std::vector<char> a(100), b(100);
  std::string why;
  Registration ra = cache.acquire(a.data(), a.size(), kTarget, &why);
  Registration rb = cache.acquire(b.data(), b.size(), kTarget, &why);
  EXPECT_EQ(cache.kept_entries(), 2u);  // over the limit while both are in use
  EXPECT_EQ(cache.evictions(), 0u);
  cache.release(ra);  // now the older one can go
  EXPECT_EQ(cache.kept_entries(), 1u);
  EXPECT_EQ(cache.evictions(), 1u);
  cache.release(rb);
  EXPECT_EQ(cache.kept_entries(), 1u);
}

TEST(RegistrationCache, ARefusedRegistrationSaysWhy) {
  Device d;
  RegistrationCache cache(d.context->api(), d.context->pd(), {});
  std::string why;
  Registration r = cache.acquire(nullptr, 4096, kTarget, &why);
  if (!r) {
    EXPECT_NE(why.find("ibv_reg_mr of 4096 bytes failed: "), std::string::npos) << why;
  } else {
    cache.release(r);
    GTEST_SKIP() << "the device registers unmapped memory";
  }
}

}  // namespace
}  // namespace weft::transport::ib

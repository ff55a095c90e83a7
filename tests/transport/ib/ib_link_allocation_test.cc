// IbLink allocates nothing per frame in steady state: eager frames both ways, frames
// that wait for credit, and large frames by rendezvous (registered per transfer). The
// soft device allocates inside its own calls, as a driver may; those calls run through
// a table that marks them, and only the link's own allocations are counted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "tests/transport/ib/link_pair.h"

namespace {

thread_local int in_device = 0;
uint64_t link_allocations = 0;
bool counting = false;

// The soft device's entry F, marked as the device's while it runs.
template <auto F>
struct Marked;
template <typename R, typename... A, R (*F)(A...)>
struct Marked<F> {
  static R call(A... a) {
    ++in_device;
    R r = F(a...);
    --in_device;
    return r;
  }
};

const weft::transport::ib::VerbsApi& marked_api() {
  static const weft::transport::ib::VerbsApi api = [] {
    namespace soft = weft::testing::soft_verbs;
    weft::transport::ib::VerbsApi a = weft::testing::soft_verbs_api();
    a.post_send = &Marked<&soft::post_send>::call;
    a.post_recv = &Marked<&soft::post_recv>::call;
    a.poll_cq = &Marked<&soft::poll_cq>::call;
    a.reg_mr = &Marked<&soft::reg_mr>::call;
    a.dereg_mr = &Marked<&soft::dereg_mr>::call;
    return a;
  }();
  return api;
}

}  // namespace

void* operator new(size_t bytes) {
  if (counting && in_device == 0) ++link_allocations;
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace weft::transport::ib {
namespace {

using testing::frame;
using testing::LinkPair;
using testing::PairOptions;
using testing::pattern;

// Counts what arrives, into memory of its own: it allocates nothing either.
struct CountingHandler : LinkHandler {
  std::vector<std::byte> sink = std::vector<std::byte>(1 << 20);
  uint64_t frames = 0, sent = 0, failures = 0;
  void on_frame(int, const FrameHeader&) override {}
  std::byte* payload_target(int, const FrameHeader&, uint64_t offset) override {
    return sink.data() + offset;
  }
  void on_payload_done(int, const FrameHeader&) override { ++frames; }
  void on_sent(int, void*) override { ++sent; }
  void on_link_failed(int, const base::Failure&) override { ++failures; }
};

TEST(IbLinkAllocations, NoneInSteadyState) {
  PairOptions options;
  options.api = &marked_api();
  CountingHandler at0, at1;
  LinkPair pair(options, &at1, &at0);
  const std::string small = pattern(64, 1);
  const std::string large = pattern(100'000, 2);
  int cookie = 0;
  uint64_t to1 = 0, to0 = 0;
  auto round = [&] {
    // Ping-pong, a burst within the credit, and a large frame by rendezvous.
    pair.link0->send(frame(small.size(), 1), small.data(), nullptr);
    ASSERT_TRUE(pair.pump([&] { return at1.frames == to1 + 1; }));
    pair.link1->send(frame(small.size(), 2), small.data(), nullptr);
    for (int i = 0; i < 20; ++i) pair.link0->send(frame(small.size(), 3), small.data(), &cookie);
    pair.link0->send(frame(large.size(), 4), large.data(), &cookie);
    to1 += 22;
    to0 += 1;
    ASSERT_TRUE(pair.pump([&] { return at1.frames == to1 && at0.frames == to0; }));
  };
  for (int i = 0; i < 20; ++i) round();  // warm-up
  counting = true;
  for (int i = 0; i < 200; ++i) round();
  counting = false;
  EXPECT_EQ(link_allocations, 0u) << "heap allocations of the link in 200 rounds";
  EXPECT_EQ(at1.frames, 220u * 22);
  EXPECT_EQ(at0.failures + at1.failures, 0u);
}

}  // namespace
}  // namespace weft::transport::ib

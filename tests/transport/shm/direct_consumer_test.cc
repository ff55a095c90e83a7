// ShmLink::progress(consumer): the engine's way of taking frames off a ring, by direct
// calls on a consumer of its own type instead of LinkHandler's virtual ones. The
// consumer here has no virtual function at all. Covers order across wrap-around, a
// batch released with one tail store (and one wake-up of a producer waiting for space),
// single-copy payloads, and a record torn or corrupted by a peer that died.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/transport/shm/ring_pair.h"

namespace weft::transport::shm {
namespace {

using testing::drain_doorbells;
using testing::frame;
using testing::pattern;
using testing::readable;
using Pair = testing::RingPair;

// Records what it is given, and the ring's published tail at each frame's end, to see
// when the consumed space is released.
struct DirectConsumer {
  struct Frame {
    FrameHeader header;
    std::string payload;
    uint64_t tail_at_done;
  };
  explicit DirectConsumer(RingView ring) : ring(ring) {}
  void on_frame(int, const FrameHeader& h) { current.assign(h.recv_id ? 0 : h.payload_bytes, 0); }
  std::byte* payload_target(int, const FrameHeader& h, uint64_t offset) {
    if (h.recv_id) return reinterpret_cast<std::byte*>(streamed.data()) + h.offset + offset;
    return reinterpret_cast<std::byte*>(current.data()) + offset;
  }
  void on_payload_done(int, const FrameHeader& h) {
    frames.push_back({h, current, ring.control->tail.load()});
  }

  RingView ring;
  std::string current, streamed;
  std::vector<Frame> frames;
};
static_assert(!std::is_polymorphic_v<DirectConsumer>, "the calls must not need a vtable");

TEST(ShmDirectConsumer, FramesArriveInOrderAndIntactWithoutTheHandler) {
  Pair pair;
  DirectConsumer consumer(pair.ring_0_to_1());
  std::vector<std::string> sent;
  for (int i = 0; i < 60; ++i) {
    sent.push_back(pattern(static_cast<size_t>(i * 37 % 700), i));
    pair.link0->send(frame(sent.back().size(), i), sent.back().data(), nullptr);
    if (i % 3 == 2) pair.link1->progress(consumer);  // batches of three, wrapping often
  }
  ASSERT_EQ(consumer.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(consumer.frames[i].header.tag, static_cast<int32_t>(i));
    EXPECT_EQ(consumer.frames[i].payload, sent[i]) << "frame " << i;
  }
  EXPECT_TRUE(pair.handler1.frames.empty());  // nothing went the virtual way
  EXPECT_TRUE(pair.handler1.failures.empty());
}

TEST(ShmDirectConsumer, ABatchIsReleasedOnceAndWakesAWaitingProducerOnce) {
  Pair pair;
  DirectConsumer consumer(pair.ring_0_to_1());
  std::string payload = pattern(900, 3);
  for (int i = 0; i < 4; ++i) pair.link0->send(frame(900, i), payload.data(), nullptr);
  // Three 1 KiB records fill the 4 KiB ring; the fourth waits, and its producer sleeps.
  ASSERT_TRUE(pair.link0->prepare_to_sleep());
  pair.link1->progress(consumer);
  ASSERT_EQ(consumer.frames.size(), 3u);
  for (const auto& f : consumer.frames) EXPECT_EQ(f.tail_at_done, 0u) << "released mid-batch";
  EXPECT_EQ(pair.ring_0_to_1().control->tail.load(), 3 * 1024u);  // then once, for all three
  EXPECT_EQ(drain_doorbells(pair.link0->poll_fd()), 1);
  pair.link0->woke_up();
  pair.link0->service_fd();  // the fourth goes in
  pair.link1->progress(consumer);
  ASSERT_EQ(consumer.frames.size(), 4u);
  EXPECT_EQ(consumer.frames[3].header.tag, 3);
  EXPECT_EQ(consumer.frames[3].payload, payload);
}

TEST(ShmDirectConsumer, SingleCopyPayloadsLandInTheConsumersBuffer) {
  ShmLinkOptions options;
  options.single_copy = true;
  options.single_copy_min_bytes = 1;
  Pair pair(options);
  DirectConsumer consumer(pair.ring_0_to_1());
  consumer.streamed.assign(6000, 0);
  std::string data = pattern(5000, 4);
  FrameHeader h = frame(0, 9);
  h.recv_id = 1;
  int cookie = 0;
  pair.link0->send_stream(h, data.data(), data.size(), &cookie);
  pair.link1->progress(consumer);
  pair.link0->progress();  // sees the slot done
  ASSERT_EQ(consumer.frames.size(), 1u);
  EXPECT_EQ(consumer.frames[0].header.payload_bytes, data.size());
  EXPECT_EQ(consumer.streamed.substr(0, data.size()), data);
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
}

TEST(ShmDirectConsumer, ARecordTornByADyingPeerIsNeverDelivered) {
  Pair pair;
  DirectConsumer consumer(pair.ring_0_to_1());
  std::string first = pattern(200, 1);
  pair.link0->send(frame(200, 1), first.data(), nullptr);
  // Rank 0 dies with the next record's payload written and its stamp not: the word at
  // the consumer's tail, once past the first record, is still zero.
  RingView ring = pair.ring_0_to_1();
  std::memset(ring.records + 64 + 256 + 64, 0x5a, 128);
  pair.link0.reset();

  pair.link1->progress(consumer);
  ASSERT_EQ(consumer.frames.size(), 1u);  // the complete record, and only it
  EXPECT_EQ(consumer.frames[0].payload, first);
  pair.link1->progress(consumer);
  EXPECT_EQ(consumer.frames.size(), 1u);
  // The dead peer's socket says how it ended; the failure is reported once.
  ASSERT_TRUE(readable(pair.link1->poll_fd()));
  pair.link1->service_fd();
  pair.link1->progress(consumer);
  EXPECT_EQ(consumer.frames.size(), 1u);
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_EQ(pair.handler1.failures[0], "connection closed by the peer");
  EXPECT_TRUE(pair.handler1.frames.empty());
}

TEST(ShmDirectConsumer, ACorruptRecordFailsTheLinkAndIsReportedOnce) {
  Pair pair;
  DirectConsumer consumer(pair.ring_0_to_1());
  std::string good = pattern(100, 2);
  pair.link0->send(frame(100, 1), good.data(), nullptr);
  const uint64_t garbage = 0x1234567812345678ull;  // non-zero: looks like a stamp
  std::memcpy(pair.ring_0_to_1().records + 64 + 128, &garbage, sizeof garbage);
  pair.link1->progress(consumer);
  ASSERT_EQ(consumer.frames.size(), 1u);  // what came before it
  EXPECT_TRUE(pair.link1->failed());
  pair.link1->progress(consumer);
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_NE(pair.handler1.failures[0].find("corrupt record"), std::string::npos);
  EXPECT_EQ(consumer.frames.size(), 1u);
}

}  // namespace
}  // namespace weft::transport::shm

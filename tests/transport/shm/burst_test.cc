// Bursts on a shared-memory link: frames sent between begin_burst() and end_burst()
// are written into the ring at once but published together, with one stamp and at most
// one doorbell; a lone frame is visible at once. The link holds a burst around every
// batch it delivers, so the answers sent from the batch leave in one publish, and a
// ring that fills in the middle of a burst publishes what it holds rather than waiting.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "tests/transport/shm/ring_pair.h"

namespace weft::transport::shm {
namespace {

using testing::drain_doorbells;
using testing::frame;
using testing::pattern;
using testing::readable;
using Pair = testing::RingPair;

TEST(ShmBurst, ALoneFrameIsVisibleAtOnce) {
  Pair pair;
  ASSERT_TRUE(pair.link1->prepare_to_sleep());
  std::string payload = pattern(40, 1);
  EXPECT_TRUE(pair.link0->send(frame(40, 1), payload.data(), nullptr));
  EXPECT_EQ(drain_doorbells(pair.link1->poll_fd()), 1);
  pair.link1->woke_up();
  pair.link1->progress();  // nothing more from the producer: it is there already
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
  EXPECT_EQ(pair.handler1.frames[0].payload, payload);
}

TEST(ShmBurst, ABurstIsPublishedOnceAtItsEnd) {
  Pair pair;
  ASSERT_TRUE(pair.link1->prepare_to_sleep());
  std::vector<std::string> sent;
  pair.link0->begin_burst();
  for (int i = 0; i < 5; ++i) {
    sent.push_back(pattern(static_cast<size_t>(50 + 90 * i), i));
    // Copied into the ring: the caller's buffer is free at once, as outside a burst.
    EXPECT_TRUE(pair.link0->send(frame(sent.back().size(), i), sent.back().data(), nullptr));
  }
  EXPECT_FALSE(readable(pair.link1->poll_fd()));  // no doorbell yet
  pair.link1->progress();                         // and nothing to see
  EXPECT_TRUE(pair.handler1.frames.empty());
  ASSERT_TRUE(pair.link1->prepare_to_sleep());

  pair.link0->end_burst();
  EXPECT_EQ(drain_doorbells(pair.link1->poll_fd()), 1);  // one doorbell for five frames
  pair.link1->woke_up();
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(pair.handler1.frames[i].header.tag, static_cast<int32_t>(i));
    EXPECT_EQ(pair.handler1.frames[i].payload, sent[i]) << "frame " << i;
  }
}

// Answers every frame it is handed with a frame of its own on the same link.
struct Replier : weft::testing::RecordingHandler {
  ShmLink* link = nullptr;
  void on_payload_done(int peer, const FrameHeader& h) override {
    RecordingHandler::on_payload_done(peer, h);
    FrameHeader reply = frame(8, h.tag + 100);
    link->send(reply, "answer!", nullptr);
  }
};

TEST(ShmBurst, AnswersSentWhileABatchIsHandledLeaveInOnePublish) {
  Pair pair;
  Replier replier;
  replier.link = pair.link1.get();
  std::string payload = pattern(30, 5);
  pair.link0->begin_burst();
  for (int i = 0; i < 6; ++i) pair.link0->send(frame(30, i), payload.data(), nullptr);
  pair.link0->end_burst();
  ASSERT_TRUE(pair.link0->prepare_to_sleep());
  pair.link1->progress(replier);  // one batch of six, six answers
  ASSERT_EQ(replier.frames.size(), 6u);
  EXPECT_EQ(drain_doorbells(pair.link0->poll_fd()), 1);
  pair.link0->woke_up();
  pair.link0->progress();
  ASSERT_EQ(pair.handler0.frames.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(pair.handler0.frames[i].header.tag, 100 + i);
    EXPECT_EQ(pair.handler0.frames[i].payload, std::string("answer!", 8));
  }
}

// Answers the first frame of a batch; at the second, a single-copy message (a long read
// inside the batch), looks whether that answer is visible to the peer already.
struct AnswerThenLook {
  ShmLink* link = nullptr;
  RingView back;  // the ring `link` writes into
  bool answer_visible_during_copy = false;
  std::string streamed = std::string(6000, '\0');
  void on_frame(int, const FrameHeader& h) {
    if (h.recv_id) answer_visible_during_copy = stamp_of(back, 0) != 0;
  }
  std::byte* payload_target(int, const FrameHeader& h, uint64_t offset) {
    return h.recv_id ? reinterpret_cast<std::byte*>(streamed.data()) + offset : nullptr;
  }
  void on_payload_done(int, const FrameHeader& h) {
    if (!h.recv_id) link->send(frame(0, 100), nullptr, nullptr);
  }
  static uint64_t stamp_of(RingView ring, uint64_t position) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(ring.records + position)).load();
  }
};

TEST(ShmBurst, AnAnswerDoesNotWaitForASingleCopyReadLaterInTheBatch) {
  ShmLinkOptions options;
  options.single_copy = true;
  options.single_copy_min_bytes = 1;
  Pair pair(options);
  AnswerThenLook consumer;
  consumer.link = pair.link1.get();
  consumer.back = testing::ring_of(pair.inbox0, 1);
  std::string small = pattern(10, 1), large = pattern(5000, 2);
  FrameHeader stream = frame(0, 2);
  stream.recv_id = 1;
  int cookie = 0;
  pair.link0->begin_burst();
  pair.link0->send(frame(small.size(), 1), small.data(), nullptr);
  pair.link0->send_stream(stream, large.data(), large.size(), &cookie);
  pair.link0->end_burst();
  pair.link1->progress(consumer);
  EXPECT_TRUE(consumer.answer_visible_during_copy);
  EXPECT_EQ(consumer.streamed.substr(0, large.size()), large);
  pair.link0->progress();
  ASSERT_EQ(pair.handler0.frames.size(), 1u);
  EXPECT_EQ(pair.handler0.frames[0].header.tag, 100);
}

TEST(ShmBurst, ARingThatFillsInABurstPublishesWhatItHolds) {
  Pair pair;
  std::vector<std::string> sent;
  pair.link0->begin_burst();
  for (int i = 0; i < 6; ++i) {
    sent.push_back(pattern(900, 10 + i));
    pair.link0->send(frame(900, i), sent.back().data(), nullptr);  // three fit the ring
  }
  // The held three are visible: the consumer can free the space the rest wait for.
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.frames.size(), 3u);
  pair.link0->progress();  // the rest go into the ring, still held by the burst
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.frames.size(), 3u);
  pair.link0->end_burst();
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(pair.handler1.frames[i].header.tag, i);
    EXPECT_EQ(pair.handler1.frames[i].payload, sent[i]) << "frame " << i;
  }
}

}  // namespace
}  // namespace weft::transport::shm

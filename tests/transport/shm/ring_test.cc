// The shared-memory ring and ShmLink, step by step in one thread: two links joined by
// two inbox segments and a socket pair, progressed by hand, so that every interleaving
// here is the same on every run. Covers wrap-around, a full ring, the doorbell
// handshake before sleeping (both orders), single-copy slots reused and withdrawn, and
// a peer that dies in the middle of a record, exits with doorbells unread (a reset,
// not a close) or leaves a corrupt one, and small frames in one line (compact records).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/transport/shm/ring_pair.h"
#include "weft/error.h"

namespace weft::transport::shm {
namespace {

using testing::frame;
using testing::kCapacity;
using testing::pattern;
using testing::readable;
using Pair = testing::RingPair;

TEST(ShmRing, FramesWrapAroundTheRingInOrderAndIntact) {
  Pair pair;
  // Sizes that are not multiples of the 64-byte padding, so records end at every offset
  // of a line and payloads straddle the end of the ring; 60 frames are many rings' worth.
  std::vector<std::string> sent;
  for (int i = 0; i < 60; ++i) {
    sent.push_back(pattern(static_cast<size_t>(i * 37 % 700), i));
    pair.link0->send(frame(sent.back().size(), i), sent.back().data(), nullptr);
    pair.link1->progress();  // consumes as it goes, so the ring never fills
  }
  ASSERT_EQ(pair.handler1.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(pair.handler1.frames[i].header.tag, static_cast<int32_t>(i));
    EXPECT_EQ(pair.handler1.frames[i].payload, sent[i]) << "frame " << i;
  }
  EXPECT_GT(pair.ring_0_to_1().control->tail.load(), 4 * kCapacity);  // wrapped, often
  EXPECT_TRUE(pair.handler1.failures.empty());
}

TEST(ShmRing, AFullRingQueuesFramesAndFlushesThemOnceTheConsumerFreesSpace) {
  Pair pair;
  std::vector<std::string> sent;
  int queued = 0;
  for (int i = 0; i < 12; ++i) {
    sent.push_back(pattern(900, i));  // 1 KiB records: three fit a 4 KiB ring with a line spare
    if (!pair.link0->send(frame(900, i), sent.back().data(), nullptr)) ++queued;
  }
  EXPECT_EQ(queued, 9);  // the ring took three; the link keeps copies of the rest
  // The producer's memory may change now: queued frames were copied (no cookie).
  for (std::string& s : sent) s.assign(s.size(), 'x');
  for (int round = 0; round < 20 && pair.handler1.frames.size() < 12; ++round) {
    pair.link1->progress();  // consumes, frees the space
    pair.link0->progress();  // flushes what waited
  }
  ASSERT_EQ(pair.handler1.frames.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(pair.handler1.frames[i].header.tag, i);
    // The first three went into the ring before the overwrite; all carry the original.
    EXPECT_EQ(pair.handler1.frames[i].payload, pattern(900, i)) << "frame " << i;
  }
}

TEST(ShmRing, AConsumerThatPreparesToSleepIsWokenByTheNextRecord) {
  Pair pair;
  ASSERT_TRUE(pair.link1->prepare_to_sleep());  // nothing there: it may sleep
  EXPECT_FALSE(readable(pair.link1->poll_fd()));
  std::string payload = pattern(100, 1);
  pair.link0->send(frame(100, 7), payload.data(), nullptr);  // sees the flag: rings
  EXPECT_TRUE(readable(pair.link1->poll_fd()));
  pair.link1->woke_up();
  pair.link1->service_fd();  // reads the doorbell, then the ring
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
  EXPECT_EQ(pair.handler1.frames[0].payload, payload);
  EXPECT_FALSE(readable(pair.link1->poll_fd()));

  // Without the flag (the consumer is awake), no doorbell is sent.
  pair.link0->send(frame(100, 8), payload.data(), nullptr);
  EXPECT_FALSE(readable(pair.link1->poll_fd()));
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.frames.size(), 2u);
}

TEST(ShmRing, ARecordThatArrivesBeforeTheSleepKeepsTheConsumerAwake) {
  Pair pair;
  std::string payload = pattern(10, 2);
  pair.link0->send(frame(10, 1), payload.data(), nullptr);  // the consumer is awake: no bell
  EXPECT_FALSE(pair.link1->prepare_to_sleep());             // it sees the record instead
  pair.link1->woke_up();
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.frames.size(), 1u);
}

TEST(ShmRing, AProducerWaitingForSpaceIsWokenWhenTheConsumerFreesIt) {
  Pair pair;
  std::string payload = pattern(900, 3);
  for (int i = 0; i < 4; ++i) pair.link0->send(frame(900, i), payload.data(), nullptr);
  // The fourth frame waits for space: the producer may sleep only after asking to be woken.
  ASSERT_TRUE(pair.link0->prepare_to_sleep());
  EXPECT_FALSE(readable(pair.link0->poll_fd()));
  pair.link1->progress();  // frees the ring and sees the producer waiting
  EXPECT_TRUE(readable(pair.link0->poll_fd()));
  pair.link0->woke_up();
  pair.link0->service_fd();  // flushes the fourth
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.frames.size(), 4u);
}

TEST(ShmRing, SingleCopySlotsAreReusedAndAWithdrawnOneIsSkipped) {
  ShmLinkOptions options;
  options.single_copy = true;
  options.single_copy_min_bytes = 1;
  Pair pair(options);
  // More streams than slots, each read straight from the sender's memory.
  constexpr int kStreams = 3 * kCmaSlots;
  std::vector<std::string> data;
  for (int i = 0; i < kStreams; ++i) data.push_back(pattern(5000 + i, i));
  pair.handler1.streamed.resize(6000);
  std::vector<int> cookies(kStreams);
  for (int i = 0; i < kStreams; ++i) {
    FrameHeader h = frame(0, i);
    h.recv_id = 1;
    pair.link0->send_stream(h, data[i].data(), data[i].size(), &cookies[i]);
    pair.link1->progress();  // copies it
    pair.link0->progress();  // sees the slot done: reports the send, frees the slot
    ASSERT_EQ(pair.handler0.sent.size(), static_cast<size_t>(i + 1));
    EXPECT_EQ(pair.handler0.sent.back(), &cookies[i]);
    EXPECT_EQ(std::memcmp(pair.handler1.streamed.data(), data[i].data(), data[i].size()), 0);
  }

  // A stream withdrawn before the consumer reads it is skipped: no frame, no bytes.
  FrameHeader h = frame(0, 99);
  h.recv_id = 1;
  int withdrawn = 0;
  const size_t frames_before = pair.handler1.frames.size();
  std::string gone = pattern(5000, 99);
  pair.link0->send_stream(h, gone.data(), gone.size(), &withdrawn);
  EXPECT_TRUE(pair.link0->abandon(&withdrawn));
  gone.assign(gone.size(), 'x');
  pair.link1->progress();
  pair.link0->progress();
  EXPECT_EQ(pair.handler1.frames.size(), frames_before);
  EXPECT_NE(pair.handler0.sent.back(), &withdrawn);
  // And the slot is free again for the next one.
  pair.link0->send_stream(h, data[0].data(), data[0].size(), &cookies[0]);
  pair.link1->progress();
  pair.link0->progress();
  EXPECT_EQ(pair.handler1.frames.size(), frames_before + 1);
  EXPECT_TRUE(pair.handler1.failures.empty());
}

TEST(ShmRing, APeerThatDiesMidRecordFailsTheLinkOnceAndDeliversNothingOfIt) {
  Pair pair;
  std::string first = pattern(200, 1);
  pair.link0->send(frame(200, 1), first.data(), nullptr);
  // Rank 0 dies after writing the next record's payload but before its stamp: the bytes
  // are in the ring, the first word at the consumer's tail position is still zero.
  RingView ring = pair.ring_0_to_1();
  const uint64_t head = 64 + 256;  // the first record: header and 200 bytes padded to 256
  std::memset(ring.records + head + 64, 0x5a, 128);
  pair.link0.reset();  // closes its socket, as the kernel does for a dead process

  ASSERT_TRUE(readable(pair.link1->poll_fd()));
  pair.link1->service_fd();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);  // the complete record, and only it
  EXPECT_EQ(pair.handler1.frames[0].payload, first);
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_EQ(pair.handler1.failures[0], "connection closed by the peer");
  pair.link1->service_fd();
  pair.link1->progress();
  EXPECT_EQ(pair.handler1.failures.size(), 1u);  // reported once
  EXPECT_THROW(pair.link1->send(frame(0, 2), nullptr, nullptr), PeerError);
}

TEST(ShmRing, APeerThatExitsWithDoorbellsUnreadStillDeliversWhatItWrote) {
  Pair pair;
  // A doorbell from rank 1 that rank 0 never reads: closing a socket with unread data
  // resets the connection, so rank 1's next read fails with ECONNRESET, not EOF.
  const char bell = 1;
  ASSERT_EQ(::send(pair.link1->poll_fd(), &bell, 1, MSG_NOSIGNAL), 1);
  std::string last = pattern(300, 3);
  pair.link0->send(frame(300, 3), last.data(), nullptr);  // its last message
  pair.link0.reset();

  ASSERT_TRUE(readable(pair.link1->poll_fd()));
  pair.link1->service_fd();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);  // delivered before the link failed
  EXPECT_EQ(pair.handler1.frames[0].payload, last);
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_EQ(pair.handler1.failures[0], "connection reset by the peer");
}

// Every field a frame may carry, different in every frame.
FrameHeader full_header(uint64_t payload_bytes, int i) {
  FrameHeader h = frame(payload_bytes, 100 + i);
  h.kind = static_cast<uint8_t>(2 + i);
  h.dtype = static_cast<uint8_t>(i);
  h.comm = 7000u + static_cast<uint32_t>(i);
  h.src = 3 + i;
  h.seq = (1ull << 40) + static_cast<uint64_t>(i);
  return h;
}

TEST(ShmRing, SmallFramesArriveWithEveryFieldOfTheirHeader) {
  Pair pair;
  // Up to 24 bytes go as compact one-line records, 25 and more as a header line and
  // payload lines; a frame with a send_id, an offset or a partial payload never compact.
  std::vector<FrameHeader> sent;
  std::vector<std::string> payloads;
  for (uint64_t bytes : {0, 1, 8, 23, 24, 25, 64}) {
    sent.push_back(full_header(bytes, static_cast<int>(sent.size())));
    payloads.push_back(pattern(bytes, static_cast<int>(sent.size())));
  }
  sent.push_back(full_header(8, 20));
  sent.back().send_id = 99;
  payloads.push_back(pattern(8, 20));
  sent.push_back(full_header(8, 21));
  sent.back().msg_bytes = 4096;  // the first piece of a larger message
  payloads.push_back(pattern(8, 21));
  for (size_t i = 0; i < sent.size(); ++i) {
    ASSERT_TRUE(pair.link0->send(sent[i], payloads[i].data(), nullptr));
  }
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(std::memcmp(&pair.handler1.frames[i].header, &sent[i], sizeof(FrameHeader)), 0)
        << "frame " << i;
    EXPECT_EQ(pair.handler1.frames[i].payload, payloads[i]) << "frame " << i;
  }
  // A collective's call stamp (recv_id) travels in the compact record too.
  FrameHeader stamped = full_header(8, 30);
  stamped.recv_id = 0xfeedfacecafe;
  pair.handler1.streamed.assign(8, 0);
  const std::string payload = pattern(8, 30);
  ASSERT_TRUE(pair.link0->send(stamped, payload.data(), nullptr));
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), sent.size() + 1);
  EXPECT_EQ(std::memcmp(&pair.handler1.frames.back().header, &stamped, sizeof stamped), 0);
  EXPECT_EQ(std::string(pair.handler1.streamed.begin(), pair.handler1.streamed.end()), payload);
}

TEST(ShmRing, FramesOfUpTo24BytesTakeOneLineOfTheRing) {
  // The ring takes frames until fewer than two lines beyond the record are free (one
  // for the record after it): 63 one-line records in 4 KiB, but 31 two-line ones.
  for (auto [bytes, fit] : {std::pair<uint64_t, int>{8, 63}, {24, 63}, {25, 31}}) {
    Pair pair;
    int taken = 0;
    const std::string payload = pattern(bytes, 1);
    for (int i = 0; i < 80; ++i) {
      if (pair.link0->send(frame(bytes, i), payload.data(), nullptr)) ++taken;
    }
    EXPECT_EQ(taken, fit) << bytes << "-byte frames";
    for (int round = 0; round < 10 && pair.handler1.frames.size() < 80; ++round) {
      pair.link1->progress();
      pair.link0->progress();
    }
    ASSERT_EQ(pair.handler1.frames.size(), 80u) << bytes << "-byte frames";
    for (int i = 0; i < 80; ++i) EXPECT_EQ(pair.handler1.frames[i].header.tag, i);
  }
}

TEST(ShmRing, ACompactRecordClaimingMoreThanItsLineFailsTheLink) {
  Pair pair;
  const std::string payload = pattern(8, 1);
  ASSERT_TRUE(pair.link0->send(frame(8, 1), payload.data(), nullptr));
  RingView ring = pair.ring_0_to_1();
  const uint32_t too_long = 200;  // CompactRecord::payload_bytes, at byte 32 of the line
  std::memcpy(ring.records + 32, &too_long, sizeof too_long);
  pair.link1->progress();
  EXPECT_TRUE(pair.handler1.frames.empty());
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_NE(pair.handler1.failures[0].find("compact payload too long"), std::string::npos);
}

TEST(ShmRing, ACorruptRecordFailsTheLinkInsteadOfDeliveringGarbage) {
  Pair pair;
  RingView ring = pair.ring_0_to_1();
  const uint64_t garbage = 0x1234567812345678ull;  // non-zero: looks like a stamp
  std::memcpy(ring.records, &garbage, sizeof garbage);
  pair.link1->progress();
  EXPECT_TRUE(pair.handler1.frames.empty());
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_NE(pair.handler1.failures[0].find("corrupt record"), std::string::npos);
  EXPECT_TRUE(pair.link1->failed());
}

}  // namespace
}  // namespace weft::transport::shm

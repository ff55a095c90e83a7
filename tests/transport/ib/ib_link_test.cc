// IbLink driven by hand over the soft verbs device, in one process and one thread:
// eager frames and their credit, the rendezvous by RDMA WRITE (chunks, pieces,
// discarded payloads, abandoned senders), zero-byte frames, the sleep flag and its
// doorbell, and failures that name the peer and the verbs status.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/transport/ib/link_pair.h"

namespace weft::transport::ib {
namespace {

using testing::frame;
using testing::LinkPair;
using testing::PairOptions;
using testing::pattern;
using testing::readable;

// Bytes waiting on a socket (doorbells), read and counted.
int drain_doorbells(int fd) {
  int bells = 0;
  char sink[64];
  for (ssize_t n; (n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT)) > 0;)
    bells += static_cast<int>(n);
  return bells;
}

TEST(IbLink, DescribesItsPortAndQueuePairs) {
  LinkPair pair;
  const std::string d = pair.link0->describe();
  EXPECT_EQ(d.rfind("ib softib0:1 qpn ", 0), 0u) << d;
  EXPECT_NE(d.find("(RoCE v2 gid 1, mtu 4096)"), std::string::npos) << d;
}

TEST(IbLink, SmallFramesArriveInOrderBothWays) {
  LinkPair pair;
  std::vector<std::string> sent;
  for (int i = 0; i < 20; ++i) {
    sent.push_back(pattern(static_cast<size_t>(i * 37), i));
    // Copied into a registered buffer and posted: written out at once.
    EXPECT_TRUE(pair.link0->send(frame(sent.back().size(), i), sent.back().data(), nullptr));
    EXPECT_TRUE(pair.link1->send(frame(sent.back().size(), i), sent.back().data(), nullptr));
  }
  ASSERT_TRUE(pair.pump([&] {
    return pair.handler0.frames.size() == sent.size() && pair.handler1.frames.size() == sent.size();
  }));
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(pair.handler1.frames[i].header.tag, static_cast<int32_t>(i));
    EXPECT_EQ(pair.handler1.frames[i].payload, sent[i]) << "frame " << i;
    EXPECT_EQ(pair.handler0.frames[i].payload, sent[i]) << "frame " << i;
  }
  EXPECT_TRUE(pair.handler0.failures.empty());
  EXPECT_TRUE(pair.handler1.failures.empty());
}

// Far more frames than receives, from both sides at once and before either side
// consumes anything: they wait for credit, none meets an empty receive queue (which
// would be a fatal RNR error), and all arrive in order once both sides make progress.
TEST(IbLink, CreditExhaustionInBothDirectionsDeliversEverythingInOrder) {
  PairOptions options;
  options.endpoint.receives = 4;
  options.endpoint.buffer_bytes = 512;
  LinkPair pair(options);
  constexpr int kFrames = 300;
  int queued = 0;
  std::vector<std::string> payloads;
  for (int i = 0; i < kFrames; ++i) payloads.push_back(pattern(static_cast<size_t>(i % 200), i));
  for (int i = 0; i < kFrames; ++i) {
    const bool sent0 = pair.link0->send(frame(payloads[i].size(), i), payloads[i].data(), nullptr);
    const bool sent1 = pair.link1->send(frame(payloads[i].size(), i), payloads[i].data(), nullptr);
    queued += (sent0 ? 0 : 1) + (sent1 ? 0 : 1);
  }
  // Each side had credit for 3 frames (one is kept for returning credit).
  EXPECT_EQ(queued, 2 * (kFrames - 3));
  ASSERT_TRUE(pair.pump([&] {
    return pair.handler0.frames.size() == kFrames && pair.handler1.frames.size() == kFrames;
  })) << pair.handler0.frames.size()
      << " and " << pair.handler1.frames.size() << " arrived";
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_EQ(pair.handler0.frames[i].header.tag, i);
    ASSERT_EQ(pair.handler1.frames[i].header.tag, i);
    ASSERT_EQ(pair.handler0.frames[i].payload, payloads[i]);
    ASSERT_EQ(pair.handler1.frames[i].payload, payloads[i]);
  }
  EXPECT_TRUE(pair.handler0.failures.empty()) << pair.handler0.failures[0];
  EXPECT_TRUE(pair.handler1.failures.empty()) << pair.handler1.failures[0];
}

// One side only sends and the other only receives: credit comes back in credit
// messages, with no traffic to ride on.
TEST(IbLink, CreditComesBackWithoutTrafficTheOtherWay) {
  PairOptions options;
  options.endpoint.receives = 8;
  LinkPair pair(options);
  std::string payload = pattern(100, 3);
  for (int i = 0; i < 500; ++i) pair.link0->send(frame(payload.size(), i), payload.data(), nullptr);
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 500; }));
  EXPECT_TRUE(pair.handler0.frames.empty());
  EXPECT_TRUE(pair.handler0.failures.empty());
  EXPECT_TRUE(pair.handler1.failures.empty());
}

TEST(IbLink, LargeFrameGoesByRdmaWriteAndReportsItsCookie) {
  LinkPair pair;
  const std::string big = pattern(100'000, 5);
  int cookie = 0;
  EXPECT_FALSE(pair.link0->send(frame(big.size(), 7), big.data(), &cookie));
  // Behind it, and out at once: the receiver keeps it until the payload has landed.
  EXPECT_TRUE(pair.link0->send(frame(10, 8), "0123456789", nullptr));
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 2; }));
  EXPECT_EQ(pair.handler1.frames[0].header.tag, 7);
  EXPECT_TRUE(pair.handler1.frames[0].payload == big) << "the payload arrived damaged";
  EXPECT_EQ(pair.handler1.frames[1].payload, "0123456789");
  ASSERT_TRUE(pair.pump([&] { return !pair.handler0.sent.empty(); }));
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
  EXPECT_EQ(pair.link0->transfers_started(), 1u);
}

// Write chunks and stream pieces that do not divide the payload: every byte lands once,
// at its offset, and the cookie is reported once, after the last piece.
TEST(IbLink, StreamsMoveInPiecesOfChunkedWrites) {
  PairOptions options;
  options.link.piece_bytes = (64 << 10) + 3;
  options.link.write_bytes = 1000 + 7;  // 66 writes a piece, 8 of them in flight at most
  LinkPair pair(options);
  const size_t bytes = (1 << 20) + 12345;
  const std::string data = pattern(bytes, 9);
  pair.handler1.streamed.assign(bytes, 0);
  FrameHeader h = frame(0, 1);
  h.recv_id = 42;  // the RecordingHandler puts streams at their offset
  int cookie = 0;
  pair.link0->send_stream(h, data.data(), bytes, &cookie);
  ASSERT_TRUE(pair.pump([&] { return !pair.handler0.sent.empty(); }));
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
  EXPECT_TRUE(std::string(pair.handler1.streamed.begin(), pair.handler1.streamed.end()) == data)
      << "the stream arrived damaged";
  // One frame per piece: 16 whole ones by rendezvous, and the rest (12297 bytes) in an
  // eager buffer.
  const uint64_t pieces = (bytes + options.link.piece_bytes - 1) / options.link.piece_bytes;
  ASSERT_EQ(pieces, 17u);
  EXPECT_EQ(pair.handler1.frames.size(), pieces);
  EXPECT_EQ(pair.link0->transfers_started(), pieces - 1);
  uint64_t offset = 0;
  for (const auto& f : pair.handler1.frames) {
    EXPECT_EQ(f.header.offset, offset);
    offset += f.header.payload_bytes;
  }
  EXPECT_EQ(offset, bytes);
}

TEST(IbLink, ControlFramesOvertakeTheRestOfAStream) {
  PairOptions options;
  options.link.piece_bytes = 100'000;
  LinkPair pair(options);
  const std::string data = pattern(1'000'000, 2);
  pair.handler1.streamed.assign(data.size(), 0);
  FrameHeader h = frame(0, 1);
  h.recv_id = 42;
  pair.link0->send_stream(h, data.data(), data.size(), nullptr);
  pair.link0->send(frame(3, 99), "abc", nullptr);
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 11; }));
  // The first piece was announced before the control frame came; the control frame
  // goes right after it, before the other nine.
  EXPECT_EQ(pair.handler1.frames[0].header.tag, 1);
  EXPECT_EQ(pair.handler1.frames[1].header.tag, 99);
  EXPECT_TRUE(std::string(pair.handler1.streamed.begin(), pair.handler1.streamed.end()) == data)
      << "the stream arrived damaged";
}

TEST(IbLink, ZeroByteFramesAndStreams) {
  LinkPair pair;
  EXPECT_TRUE(pair.link0->send(frame(0, 1), nullptr, nullptr));
  int cookie = 0;
  FrameHeader h = frame(0, 2);
  h.recv_id = 5;
  pair.link0->send_stream(h, nullptr, 0, &cookie);
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 2; }));
  EXPECT_EQ(pair.handler1.frames[0].header.payload_bytes, 0u);
  EXPECT_EQ(pair.handler1.frames[1].header.tag, 2);
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
  EXPECT_EQ(pair.link0->transfers_started(), 0u);  // nothing to write
}

// A handler that discards every payload, as the engine does for a receive that was
// abandoned.
struct DiscardingHandler : weft::testing::RecordingHandler {
  std::byte* payload_target(int, const FrameHeader&, uint64_t) override { return nullptr; }
};

TEST(IbLink, DiscardedPayloadIsNeverWrittenAndTheFrameStillEnds) {
  DiscardingHandler discarding;
  LinkPair pair({}, &discarding);
  const std::string big = pattern(200'000, 4);
  int cookie = 0;
  EXPECT_FALSE(pair.link0->send(frame(big.size(), 7), big.data(), &cookie));
  pair.link0->send(frame(3, 8), "abc", nullptr);
  ASSERT_TRUE(pair.pump([&] { return discarding.frames.size() == 2; }));
  EXPECT_EQ(discarding.frames[0].header.tag, 7);
  EXPECT_TRUE(discarding.frames[0].payload == std::string(big.size(), '\0')) << "written into";
  EXPECT_EQ(discarding.frames[1].header.tag, 8);
  ASSERT_TRUE(pair.pump([&] { return !pair.handler0.sent.empty(); }));
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
  EXPECT_TRUE(pair.handler0.failures.empty());
  EXPECT_TRUE(discarding.failures.empty());
}

// A receive abandoned while its payload is due (Link::withdraw_incoming). Before the
// clear-to-send has gone, the sender is told to write nothing: the frame ends with its
// target untouched.
TEST(IbLink, WithdrawnTargetBeforeItsCtsGetsNothingWritten) {
  PairOptions options;
  options.endpoint.receives = 4;
  LinkPair pair(options);
  // Rank 1 spends its credit on frames rank 0 does not consume yet.
  for (int i = 0; i < 3; ++i) pair.link1->send(frame(1, i), "x", nullptr);
  const std::string big = pattern(50'000, 3);
  int cookie = 0;
  pair.link0->send(frame(big.size(), 9), big.data(), &cookie);
  pair.link1->progress();  // the RTS: target registered, the CTS waits for credit
  EXPECT_LT(pair.link1->credits().available(), 2u);
  pair.link1->withdraw_incoming();
  ASSERT_TRUE(
      pair.pump([&] { return pair.handler1.frames.size() == 1 && !pair.handler0.sent.empty(); }));
  EXPECT_EQ(pair.handler1.frames[0].header.tag, 9);
  EXPECT_TRUE(pair.handler1.frames[0].payload == std::string(big.size(), '\0')) << "written into";
  EXPECT_EQ(pair.handler0.sent, std::vector<void*>{&cookie});
  // Both go on.
  pair.link0->send(frame(2, 10), "ok", nullptr);
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 2; }));
  EXPECT_TRUE(pair.handler0.failures.empty());
  EXPECT_TRUE(pair.handler1.failures.empty());
}

// After the clear-to-send, withdraw_incoming returns once the last write has landed
// (here it has already): nothing is written after it returns.
TEST(IbLink, WithdrawnTargetAfterItsCtsWaitsForTheLastWrite) {
  LinkPair pair;
  const std::string big = pattern(50'000, 4);
  pair.link0->send(frame(big.size(), 9), big.data(), nullptr);
  pair.link1->progress();  // the RTS; the CTS goes
  pair.link0->progress();  // the CTS; the writes go, the last with its immediate
  pair.link1->withdraw_incoming();
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
  EXPECT_TRUE(pair.handler1.frames[0].payload == big) << "it had all landed before";
  EXPECT_TRUE(pair.handler1.failures.empty());
}

// A peer that goes while its payload is due: the frames it sent behind the payload
// arrived whole, and are delivered before the link fails.
TEST(IbLink, FramesBehindAPayloadArriveEvenWhenThePeerGoes) {
  LinkPair pair;
  const std::string big = pattern(100'000, 1);
  pair.link0->send(frame(big.size(), 1), big.data(), nullptr);
  pair.link1->progress();  // the RTS: the CTS goes back, the payload is due
  EXPECT_TRUE(pair.link0->send(frame(3, 2), "bye", nullptr));
  pair.link1->progress();  // held: the payload has not landed
  EXPECT_TRUE(pair.handler1.frames.empty());
  pair.link0.reset();  // gone without writing it (its socket and queue pair with it)
  pair.link1->service_fd();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
  EXPECT_EQ(pair.handler1.frames[0].header.tag, 2);
  EXPECT_EQ(pair.handler1.frames[0].payload, "bye");
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_NE(pair.handler1.failures[0].find("verbs link to rank 0"), std::string::npos)
      << pair.handler1.failures[0];
}

TEST(IbLink, SleepingPeerIsWokenByOneDoorbellAndOnlyWhenAsleep) {
  LinkPair pair;
  // Awake: frames go without a doorbell.
  pair.link0->send(frame(4, 1), "abcd", nullptr);
  EXPECT_FALSE(readable(pair.link1->poll_fd()));
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 1; }));
  // Going to sleep takes two steps: the flag is written, then nothing came meanwhile.
  EXPECT_FALSE(pair.link1->prepare_to_sleep());
  pair.link1->progress();
  EXPECT_TRUE(pair.link1->prepare_to_sleep());
  pair.link0->begin_burst();
  pair.link0->send(frame(4, 2), "efgh", nullptr);
  pair.link0->send(frame(4, 3), "ijkl", nullptr);
  EXPECT_FALSE(readable(pair.link1->poll_fd()));  // rung at the burst's end
  pair.link0->end_burst();
  EXPECT_EQ(drain_doorbells(pair.link1->poll_fd()), 1);
  pair.link1->woke_up();
  pair.link1->service_fd();
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 3; }));
  // That generation is answered: more frames ring nothing until rank 1 sleeps again.
  pair.link0->send(frame(4, 4), "mnop", nullptr);
  EXPECT_FALSE(readable(pair.link1->poll_fd()));
  EXPECT_EQ(pair.link0->doorbells_rung(), 1u);
}

TEST(IbLink, RefusesToSleepWithWorkWaiting) {
  LinkPair pair;
  EXPECT_FALSE(pair.link1->prepare_to_sleep());
  pair.link1->progress();
  pair.link0->send(frame(4, 1), "abcd", nullptr);  // arrives before rank 1 sleeps
  EXPECT_FALSE(pair.link1->prepare_to_sleep());
  pair.link1->progress();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
}

TEST(IbLink, AbandonedStreamFinishesItsPieceFromACopyAndDropsTheRest) {
  PairOptions options;
  options.link.piece_bytes = 100'000;
  LinkPair pair(options);
  std::string data = pattern(1'000'000, 6);
  const std::string original = data;
  pair.handler1.streamed.assign(data.size(), 0);
  FrameHeader h = frame(0, 1);
  h.recv_id = 42;
  int cookie = 0;
  pair.link0->send_stream(h, data.data(), data.size(), &cookie);
  // The first piece is announced; its CTS has not come back yet.
  EXPECT_EQ(pair.link0->transfers_started(), 1u);
  EXPECT_TRUE(pair.link0->abandon(&cookie));
  data.assign(data.size(), 'x');  // the caller has its memory back
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 1; }));
  pair.pump([] { return false; }, 100);
  EXPECT_EQ(pair.handler1.frames.size(), 1u);  // the rest was dropped
  EXPECT_TRUE(std::string(pair.handler1.streamed.begin(),
                          pair.handler1.streamed.begin() + 100'000) == original.substr(0, 100'000))
      << "the first piece arrived damaged";
  EXPECT_TRUE(pair.handler0.sent.empty());  // nothing reported for an abandoned cookie
  EXPECT_TRUE(pair.handler0.failures.empty());
  // The link goes on.
  pair.link0->send(frame(3, 7), "xyz", nullptr);
  ASSERT_TRUE(pair.pump([&] { return pair.handler1.frames.size() == 2; }));
}

TEST(IbLink, BadRkeyFailsBothSidesNamingThePeerAndTheStatus) {
  LinkPair pair;
  ASSERT_TRUE(weft::testing::set_soft_verbs_faults("bad_rkey_after:0"));
  const std::string big = pattern(100'000, 5);
  pair.link0->send(frame(big.size(), 7), big.data(), nullptr);
  ASSERT_TRUE(pair.pump(
      [&] { return !pair.handler0.failures.empty() && !pair.handler1.failures.empty(); }));
  ASSERT_EQ(pair.handler0.failures.size(), 1u);  // reported once
  EXPECT_NE(pair.handler0.failures[0].find("verbs link to rank 1"), std::string::npos)
      << pair.handler0.failures[0];
  EXPECT_NE(pair.handler0.failures[0].find("RDMA WRITE of transfer 1"), std::string::npos)
      << pair.handler0.failures[0];
  EXPECT_NE(pair.handler0.failures[0].find("IBV_WC_REM_ACCESS_ERR"), std::string::npos)
      << pair.handler0.failures[0];
  EXPECT_NE(pair.handler1.failures[0].find("verbs link to rank 0"), std::string::npos)
      << pair.handler1.failures[0];
  EXPECT_TRUE(pair.link0->failed());
  EXPECT_THROW(pair.link0->send(frame(1, 1), "a", nullptr), weft::PeerError);
}

// A completion the device never delivers (its fault injection) fails the link once the
// wait for one is over, instead of stalling it.
TEST(IbLink, ALostCompletionFailsTheLinkInsteadOfStallingIt) {
  PairOptions options;
  options.link.completion_wait = std::chrono::milliseconds(50);
  LinkPair pair(options);
  ASSERT_TRUE(weft::testing::set_soft_verbs_faults("drop_completion_after:2"));
  for (int i = 0; i < 5; ++i) pair.link0->send(frame(3, i), "abc", nullptr);
  ASSERT_TRUE(pair.pump([&] { return !pair.handler0.failures.empty(); }, 10'000'000));
  EXPECT_NE(pair.handler0.failures[0].find("verbs link to rank 1"), std::string::npos)
      << pair.handler0.failures[0];
  EXPECT_NE(pair.handler0.failures[0].find("no completion for"), std::string::npos)
      << pair.handler0.failures[0];
  EXPECT_EQ(pair.handler1.frames.size(), 5u);  // the frames themselves all arrived
}

TEST(IbLink, ClosedSocketFailsTheLinkAfterDeliveringWhatArrived) {
  LinkPair pair;
  pair.link0->send(frame(3, 1), "bye", nullptr);
  pair.link0->drain_and_close(1000);
  pair.link1->service_fd();
  ASSERT_EQ(pair.handler1.frames.size(), 1u);
  EXPECT_EQ(pair.handler1.frames[0].payload, "bye");
  ASSERT_EQ(pair.handler1.failures.size(), 1u);
  EXPECT_NE(pair.handler1.failures[0].find("connection closed by the peer"), std::string::npos)
      << pair.handler1.failures[0];
  EXPECT_TRUE(pair.handler0.failures.empty());  // closed on purpose: nothing to report
}

}  // namespace
}  // namespace weft::transport::ib

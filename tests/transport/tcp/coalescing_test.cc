// TcpLink's coalescing, over a real loopback connection driven by hand: a lone frame is
// written at once; the frames of a burst, and those sent while the socket is full, go
// out together in one writev, byte-exact and in order; the answers a handler sends
// while the link delivers a batch leave in one writev after it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/socket.h"
#include "tests/transport/recording_handler.h"
#include "transport/tcp/tcp_link.h"

namespace weft::transport::tcp {
namespace {

using namespace std::chrono_literals;
using Recorder = weft::testing::RecordingHandler;

std::pair<base::Fd, base::Fd> connected_pair() {
  base::Fd listener = base::listen_on(base::resolve("127.0.0.1", 0).front(), 1);
  auto addr = base::resolve("127.0.0.1", base::local_address(listener.get()).port()).front();
  base::Fd a = base::connect_to(addr, base::Deadline::after(5s));
  base::Fd b(::accept(listener.get(), nullptr, nullptr));
  return {std::move(a), std::move(b)};
}

FrameHeader header(uint64_t payload, int32_t tag) {
  FrameHeader h;
  h.kind = 1;
  h.payload_bytes = payload;
  h.tag = tag;
  return h;
}

std::string pattern(size_t bytes, int seed) {
  std::string s(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>((i * 131 + seed * 7) & 0xff);
  return s;
}

// Answers every frame it is handed with a frame of its own on `link`, once that is set.
struct Replier : Recorder {
  TcpLink* link = nullptr;
  void on_payload_done(int peer, const FrameHeader& h) override {
    Recorder::on_payload_done(peer, h);
    if (link != nullptr) link->send(header(8, h.tag + 100), "answer!", nullptr);
  }
};

class TcpCoalescing : public ::testing::Test {
 protected:
  void SetUp() override {
    auto [a, b] = connected_pair();
    sender = std::make_unique<TcpLink>(1, std::move(a), sender_events);
    receiver = std::make_unique<TcpLink>(0, std::move(b), receiver_events);
  }
  template <typename Done>
  void pump(Done done) {
    auto until = std::chrono::steady_clock::now() + 10s;
    while (!done() && std::chrono::steady_clock::now() < until) {
      sender->progress();
      receiver->progress();
    }
    ASSERT_TRUE(done()) << "timed out pumping the link";
  }
  Recorder sender_events;
  Replier receiver_events;
  std::unique_ptr<TcpLink> sender, receiver;
};

TEST_F(TcpCoalescing, ALoneFrameIsWrittenAtOnce) {
  std::string payload = pattern(100, 1);
  EXPECT_TRUE(sender->send(header(100, 1), payload.data(), &payload));
  EXPECT_EQ(sender->write_calls(), 1u);
  EXPECT_FALSE(sender->wants_write());
  auto until = std::chrono::steady_clock::now() + 10s;
  while (receiver_events.frames.empty() && std::chrono::steady_clock::now() < until) {
    receiver->progress();  // the receiver alone: nothing was left for the sender to do
  }
  ASSERT_EQ(receiver_events.frames.size(), 1u);
  EXPECT_EQ(receiver_events.frames[0].payload, payload);
  EXPECT_TRUE(sender_events.sent.empty());  // done at once: no report follows
}

TEST_F(TcpCoalescing, ABurstGoesOutInOneWritevInOrderAndByteExact) {
  std::vector<std::string> payloads;
  for (int i = 0; i < 12; ++i) payloads.push_back(pattern(static_cast<size_t>(i * 173 % 2000), i));
  std::vector<int> cookies(12);
  sender->begin_burst();
  for (int i = 0; i < 12; ++i) {
    // Half with a cookie (the caller keeps the buffer until on_sent), half without (the
    // link copies).
    void* cookie = i % 2 ? &cookies[i] : nullptr;
    EXPECT_FALSE(sender->send(header(payloads[i].size(), i), payloads[i].data(), cookie));
  }
  EXPECT_EQ(sender->write_calls(), 0u);
  const std::vector<std::string> expected = payloads;
  for (int i = 0; i < 12; i += 2) payloads[i].assign(payloads[i].size(), 'x');
  sender->end_burst();
  EXPECT_EQ(sender->write_calls(), 1u);
  std::vector<void*> reported;
  for (int i = 1; i < 12; i += 2) reported.push_back(&cookies[i]);
  EXPECT_EQ(sender_events.sent, reported);

  pump([&] { return receiver_events.frames.size() == 12; });
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(receiver_events.frames[i].header.tag, i);
    EXPECT_EQ(receiver_events.frames[i].payload, expected[i]) << "frame " << i;
  }
  EXPECT_EQ(sender->write_calls(), 1u);
}

TEST_F(TcpCoalescing, FramesSentWhileTheSocketIsFullWaitAndLeaveTogether) {
  std::vector<uint8_t> filler(64 << 20, 1);
  int filler_cookie = 0;
  EXPECT_FALSE(sender->send(header(filler.size(), 0), filler.data(), &filler_cookie));
  const uint64_t writes = sender->write_calls();
  std::vector<std::string> payloads;
  for (int i = 1; i <= 20; ++i) {
    payloads.push_back(pattern(static_cast<size_t>(i * 50), i));
    sender->send(header(payloads.back().size(), i), payloads.back().data(), nullptr);
  }
  EXPECT_EQ(sender->write_calls(), writes) << "a write per frame into a full socket";
  EXPECT_TRUE(sender->wants_write());
  pump([&] { return receiver_events.frames.size() == 21; });
  for (int i = 1; i <= 20; ++i) {
    EXPECT_EQ(receiver_events.frames[i].header.tag, i);
    EXPECT_EQ(receiver_events.frames[i].payload, payloads[i - 1]) << "frame " << i;
  }
}

TEST_F(TcpCoalescing, AnswersSentWhileABatchIsDeliveredLeaveInOneWritev) {
  receiver_events.link = receiver.get();
  std::string payload = pattern(64, 3);
  sender->begin_burst();
  for (int i = 0; i < 10; ++i) sender->send(header(payload.size(), i), payload.data(), nullptr);
  sender->end_burst();
  // Every receiver progress that delivers frames answers them all with one write.
  uint64_t delivering_calls = 0;
  auto until = std::chrono::steady_clock::now() + 10s;
  while (receiver_events.frames.size() < 10 && std::chrono::steady_clock::now() < until) {
    const size_t before = receiver_events.frames.size();
    receiver->progress();
    if (receiver_events.frames.size() > before) ++delivering_calls;
  }
  ASSERT_EQ(receiver_events.frames.size(), 10u);
  EXPECT_EQ(receiver->write_calls(), delivering_calls);
  EXPECT_LT(delivering_calls, 10u);
  pump([&] { return sender_events.frames.size() == 10; });
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(sender_events.frames[i].header.tag, 100 + i);
    EXPECT_EQ(sender_events.frames[i].payload, std::string("answer!", 8));
  }
}

}  // namespace
}  // namespace weft::transport::tcp

// TcpLink over a real loopback connection, driven by hand: framing, gathering,
// streams overtaken by control frames, abandonment, and failures.
#include "transport/tcp/tcp_link.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstring>
#include <map>
#include <vector>

#include "base/socket.h"
#include "tests/transport/recording_handler.h"
#include "weft/error.h"

namespace {

using namespace std::chrono_literals;
using weft::base::Deadline;
using weft::base::Fd;
using weft::transport::FrameHeader;
using weft::transport::tcp::TcpLink;

using Recorder = weft::testing::RecordingHandler;

std::pair<Fd, Fd> connected_pair() {
  Fd listener = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 1);
  auto addr =
      weft::base::resolve("127.0.0.1", weft::base::local_address(listener.get()).port()).front();
  Fd a = weft::base::connect_to(addr, weft::base::Deadline::after(5s));
  Fd b(::accept(listener.get(), nullptr, nullptr));
  return {std::move(a), std::move(b)};
}

FrameHeader header(uint8_t kind, uint64_t payload, uint64_t tag = 0) {
  FrameHeader h;
  h.kind = kind;
  h.payload_bytes = payload;
  h.tag = static_cast<int32_t>(tag);
  return h;
}

class TcpLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto [a, b] = connected_pair();
    sender = std::make_unique<TcpLink>(1, std::move(a), sender_events, 1 << 20);
    receiver = std::make_unique<TcpLink>(0, std::move(b), receiver_events, 1 << 20);
  }
  // Drives both ends until `done` or 10 s pass.
  template <typename Done>
  void pump(Done done) {
    auto until = std::chrono::steady_clock::now() + 10s;
    while (!done() && std::chrono::steady_clock::now() < until) {
      sender->progress();
      receiver->progress();
    }
    ASSERT_TRUE(done()) << "timed out pumping the link";
  }
  Recorder sender_events, receiver_events;
  std::unique_ptr<TcpLink> sender, receiver;
};

TEST_F(TcpLinkTest, FramesArriveInOrderWithTheirPayloads) {
  std::vector<std::string> payloads;
  for (int i = 0; i < 200; ++i)
    payloads.push_back(std::string(i * 37 % 5000, static_cast<char>('a' + i % 26)));
  int immediate = 0;
  for (int i = 0; i < 200; ++i) {
    immediate += sender->send(header(1, payloads[i].size(), i), payloads[i].data(), &payloads[i]);
  }
  pump([&] { return receiver_events.frames.size() == 200; });
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(receiver_events.frames[i].header.tag, i);
    EXPECT_EQ(receiver_events.frames[i].payload, payloads[i]);
  }
  // Every send either finished at once or is reported exactly once.
  pump([&] { return static_cast<int>(sender_events.sent.size()) + immediate == 200; });
}

TEST_F(TcpLinkTest, StreamsArriveWholeAndControlFramesOvertakeThem) {
  std::vector<uint8_t> data(32 << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13);
  receiver_events.streamed.assign(data.size(), 0);
  FrameHeader stream = header(4, 0);
  stream.recv_id = 7;
  int cookie = 0;
  sender->send_stream(stream, data.data(), data.size(), &cookie);
  sender->send(header(6, 0, 99), nullptr, nullptr);  // queued after the stream
  pump([&] { return !sender_events.sent.empty(); });
  pump([&] { return receiver_events.frames.size() == 33; });
  EXPECT_EQ(receiver_events.streamed, data);
  size_t control_at = 0;
  for (size_t i = 0; i < receiver_events.frames.size(); ++i) {
    if (receiver_events.frames[i].header.tag == 99) control_at = i;
  }
  EXPECT_LT(control_at, 32u) << "the control frame waited for the whole stream";
  EXPECT_EQ(sender_events.sent, std::vector<void*>{&cookie});
}

TEST_F(TcpLinkTest, AbandonedFramesAreSentFromACopyAndStreamsStop) {
  // Fill the socket buffers so that the frames below must queue.
  std::vector<uint8_t> filler(64 << 20, 1);
  int filler_cookie = 0;
  sender->send(header(1, filler.size()), filler.data(), &filler_cookie);
  std::string message(1000, 'm');
  int message_cookie = 0;
  EXPECT_FALSE(sender->send(header(1, message.size(), 5), message.data(), &message_cookie));
  std::vector<uint8_t> big(8 << 20, 2);
  receiver_events.streamed.assign(big.size(), 0);
  FrameHeader stream = header(4, 0);
  stream.recv_id = 3;
  int stream_cookie = 0;
  sender->send_stream(stream, big.data(), big.size(), &stream_cookie);

  EXPECT_FALSE(sender->abandon(&message_cookie));
  EXPECT_TRUE(sender->abandon(&stream_cookie));
  message.assign(1000, 'X');  // the caller reuses its buffer at once
  pump([&] {
    for (const auto& f : receiver_events.frames) {
      if (f.header.tag == 5) return true;
    }
    return false;
  });
  for (const auto& f : receiver_events.frames) {
    if (f.header.tag == 5) {
      EXPECT_EQ(f.payload, std::string(1000, 'm'));
    }
  }
  for (int i = 0; i < 100; ++i) {
    sender->progress();
    receiver->progress();
  }
  for (void* c : sender_events.sent) {
    EXPECT_NE(c, &message_cookie);
    EXPECT_NE(c, &stream_cookie);
  }
}

TEST_F(TcpLinkTest, PeerClosingIsReportedOnce) {
  sender->drain_and_close(1000);
  pump([&] { return !receiver_events.failures.empty(); });
  for (int i = 0; i < 10; ++i) receiver->progress();
  ASSERT_EQ(receiver_events.failures.size(), 1u);
  EXPECT_NE(receiver_events.failures[0].find("closed"), std::string::npos);
  EXPECT_THROW(receiver->send(header(1, 0), nullptr, nullptr), weft::Error);
}

TEST(TcpLink, CorruptStreamIsReportedNotParsed) {
  auto [a, b] = connected_pair();
  Recorder events;
  TcpLink link(0, std::move(b), events);
  char junk[64];
  std::memset(junk, 0x42, sizeof junk);
  ASSERT_EQ(::send(a.get(), junk, sizeof junk, 0), static_cast<ssize_t>(sizeof junk));
  auto until = std::chrono::steady_clock::now() + 5s;
  while (events.failures.empty() && std::chrono::steady_clock::now() < until) link.progress();
  ASSERT_EQ(events.failures.size(), 1u);
  EXPECT_NE(events.failures[0].find("out of step"), std::string::npos);
  EXPECT_TRUE(events.frames.empty());
}

}  // namespace

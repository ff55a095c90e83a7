// The store's wire protocol on plain bytes (rendezvous/tcp_store_protocol.h), including
// inputs the fuzzers of tests/fuzz found or that broke the server before.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>

#include "rendezvous/tcp_store_protocol.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

std::string bytes(std::initializer_list<uint8_t> b) { return std::string(b.begin(), b.end()); }

TEST(StoreProtocol, RequestsRoundTrip) {
  StoreRequest set{StoreOp::kSet, 1500, {"key"}, "value", 0};
  StoreRequest got = parse_request(encode_request(set));
  EXPECT_EQ(got.op, StoreOp::kSet);
  EXPECT_EQ(got.timeout_ms, 1500u);
  EXPECT_EQ(got.keys, std::vector<std::string>{"key"});
  EXPECT_EQ(got.value, "value");
  StoreRequest add{StoreOp::kAdd, kNoTimeout, {"n"}, "", -7};
  EXPECT_EQ(parse_request(encode_request(add)).delta, -7);
}

TEST(StoreProtocol, MalformedRequestsAreErrors) {
  EXPECT_THROW(parse_request(""), Error);
  EXPECT_THROW(parse_request(bytes({9})), Error);  // unknown op
  StoreRequest wait{StoreOp::kWait, 0, {"a", "b"}, "", 0};
  std::string record = encode_request(wait);
  EXPECT_THROW(parse_request(record + "x"), Error);                         // trailing bytes
  EXPECT_THROW(parse_request(record.substr(0, record.size() - 1)), Error);  // truncated
}

TEST(StoreProtocol, FramesRecordsAgainstTheLimit) {
  std::string in = bytes({5, 0, 0, 0, 1, 2});
  EXPECT_EQ(frame_record(in.substr(0, 3), 16).state, RecordFrame::kIncomplete);
  EXPECT_EQ(frame_record(in, 16).state, RecordFrame::kIncomplete);
  EXPECT_EQ(frame_record(in, 4).state, RecordFrame::kTooLong);
  in += bytes({3, 4, 5});
  RecordFrame f = frame_record(in, 16);
  EXPECT_EQ(f.state, RecordFrame::kComplete);
  EXPECT_EQ(f.length, 5u);
}

// A timeout of nearly 2^64 ms used to overflow the clock's signed nanoseconds (UB).
TEST(StoreProtocol, HugeTimeoutsWaitForever) {
  const auto now = std::chrono::steady_clock::now();
  EXPECT_EQ(request_deadline(now, kNoTimeout - 1), std::chrono::steady_clock::time_point::max());
  EXPECT_EQ(request_deadline(now, uint64_t{1} << 63), std::chrono::steady_clock::time_point::max());
  EXPECT_EQ(request_deadline(now, 250), now + std::chrono::milliseconds(250));
}

TEST(StoreProtocol, StatusRepliesRoundTrip) {
  StoreReply r = parse_reply(encode_status_reply(StoreStatus::kTimedOut, "k1, k2"));
  EXPECT_EQ(r.status, StoreStatus::kTimedOut);
  EXPECT_EQ(r.message, "k1, k2");
  EXPECT_THROW(parse_reply(""), Error);
  EXPECT_THROW(parse_reply(bytes({2, 9})), Error);  // kBadRequest without its text
  EXPECT_EQ(reply_value(bytes({2, 0, 0, 0, 'h', 'i'})), "hi");
  EXPECT_THROW(reply_counter(bytes({1, 2})), Error);
}

TEST(StoreProtocol, FindsARefusal) {
  std::string record = encode_status_reply(StoreStatus::kRefused, "too many connections");
  uint32_t len = static_cast<uint32_t>(record.size());
  std::string peeked(reinterpret_cast<const char*>(&len), sizeof len);
  peeked += record;
  EXPECT_EQ(parse_refusal(peeked), "too many connections");
  EXPECT_EQ(parse_refusal(peeked.substr(0, peeked.size() - 1)), std::nullopt);
}

// Found by store_reply_fuzzer: a zero length prefix followed by a kRefused byte made the
// client copy 4 GiB from its 4 KiB peek buffer.
TEST(StoreProtocol, ZeroLengthRefusalIsNone) {
  EXPECT_EQ(parse_refusal(bytes({0, 0, 0, 0, 3, 0, 0, 0})), std::nullopt);
}

}  // namespace
}  // namespace weft::rendezvous

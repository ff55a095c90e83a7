// The TCP connector's records on plain bytes (transport/tcp/handshake.h), including
// inputs the fuzzers of tests/fuzz found.
#include "transport/tcp/handshake.h"

#include <gtest/gtest.h>

#include <string>

#include "weft/error.h"

namespace weft::transport::tcp {
namespace {

TEST(Handshake, ContactRecordRoundTrips) {
  ContactRecord r{40311, {"10.0.0.2", "fe80::1"}};
  ContactRecord got = parse_contact_record(encode_contact_record(r));
  EXPECT_EQ(got.port, 40311);
  EXPECT_EQ(got.hosts, r.hosts);
}

// Found by tcp_handshake_fuzzer: a port over 65535 was cut to its low 16 bits, and the
// connector would have dialed that port instead of refusing the record.
TEST(Handshake, ContactRecordWithAPortOver65535IsAnError) {
  const std::string record("\x1b\x5b\x20\x1a\x00\x00\x00\x00", 8);
  EXPECT_THROW(parse_contact_record(record), Error);
}

TEST(Handshake, HelloRoundTrips) {
  Hello h;
  h.job_id = 77;
  h.from = 3;
  h.to = 1;
  h.token = "secret";
  const std::string record = encode_hello(h);
  Hello got = parse_hello(record, true);
  EXPECT_EQ(got.magic, kHelloMagic);
  EXPECT_EQ(got.version, kProtocolVersion);
  EXPECT_EQ(got.job_id, 77u);
  EXPECT_EQ(got.from, 3);
  EXPECT_EQ(got.to, 1);
  EXPECT_EQ(got.token, "secret");
  EXPECT_EQ(parse_hello(record, false).token, "");
  EXPECT_THROW(parse_hello(record.substr(0, 27), true), Error);
  EXPECT_NO_THROW(parse_hello(record.substr(0, 24), false));
}

TEST(Handshake, AnswerRoundTripsAndChecksTheMagic) {
  HelloAnswer a = parse_answer(encode_answer({false, "it belongs to another job"}), "test");
  EXPECT_FALSE(a.accepted);
  EXPECT_EQ(a.reason, "it belongs to another job");
  try {
    parse_answer(std::string(16, 'x'), "handshake with rank 0");
    FAIL() << "a bad magic was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kPeer);
  }
}

}  // namespace
}  // namespace weft::transport::tcp

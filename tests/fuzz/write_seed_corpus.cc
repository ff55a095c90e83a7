// Writes the seed corpora of the binary-protocol fuzzers (tests/fuzz/corpus/<target>/)
// with the real encoders, so that the seeds stay valid records when a format changes:
//   bazel run //tests/fuzz:write_seed_corpus -- "$PWD/tests/fuzz/corpus"
// The text formats' seeds (hostlists, init_method URLs, PMI replies) are written by hand.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "rendezvous/discovery_announcement.h"
#include "rendezvous/tcp_store_protocol.h"
#include "transport/frame.h"
#include "transport/tcp/handshake.h"

namespace r = weft::rendezvous;
namespace t = weft::transport::tcp;

namespace {

std::string root;

void write(const std::string& target, const std::string& name, const std::string& bytes) {
  std::ofstream(root + "/" + target + "/" + name, std::ios::binary) << bytes;
}

std::string with_length(const std::string& record) {
  uint32_t len = static_cast<uint32_t>(record.size());
  return std::string(reinterpret_cast<const char*>(&len), sizeof len) + record;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_seed_corpus CORPUS_DIR\n");
    return 2;
  }
  root = argv[1];

  // One connection's stream: the first byte picks the limit (odd: before authentication).
  std::string stream = "\x00";
  stream += with_length(r::encode_request({r::StoreOp::kAuth, 1000, {"token"}, "", 0}));
  stream += with_length(r::encode_request({r::StoreOp::kSet, 30000, {"rank/0"}, "addr", 0}));
  stream += with_length(r::encode_request({r::StoreOp::kGet, r::kNoTimeout, {"rank/1"}, "", 0}));
  stream += with_length(r::encode_request({r::StoreOp::kAdd, 5000, {"count"}, "", 1}));
  stream += with_length(r::encode_request({r::StoreOp::kWait, 5000, {"a", "b", "c"}, "", 0}));
  stream += with_length(r::encode_request({r::StoreOp::kCheck, 0, {"a"}, "", 0}));
  stream += with_length(r::encode_request({r::StoreOp::kDelete, 0, {"a"}, "", 0}));
  write("store_request_fuzzer", "session", stream);
  write("store_request_fuzzer", "pre_auth_set",
        "\x01" + with_length(r::encode_request({r::StoreOp::kSet, 1, {"k"}, "v", 0})));
  write("store_request_fuzzer", "huge_timeout",
        std::string(1, '\0') +
            with_length(r::encode_request({r::StoreOp::kGet, r::kNoTimeout - 1, {"k"}, "", 0})));

  write("store_reply_fuzzer", "ok_value", "\x00" + std::string("\x05\x00\x00\x00value", 9));
  write("store_reply_fuzzer", "timed_out",
        r::encode_status_reply(r::StoreStatus::kTimedOut, "rank/1, rank/2"));
  write("store_reply_fuzzer", "bad_request",
        r::encode_status_reply(r::StoreStatus::kBadRequest, "unknown store op 9"));
  write("store_reply_fuzzer", "refusal",
        with_length(r::encode_status_reply(r::StoreStatus::kRefused, "too many connections")));

  write("tcp_handshake_fuzzer", "contact",
        t::encode_contact_record({40311, {"10.0.0.2", "192.168.1.7", "fe80::1"}}));
  t::Hello hello;
  hello.job_id = 0x1234567890;
  hello.from = 3;
  hello.to = 1;
  hello.token = "0123456789abcdef";
  write("tcp_handshake_fuzzer", "hello", t::encode_hello(hello));
  write("tcp_handshake_fuzzer", "answer_accepted", t::encode_answer({true, ""}));
  write("tcp_handshake_fuzzer", "answer_refused",
        t::encode_answer({false, "it belongs to another job"}));

  // A peer's stream: a header-only frame, a small payload, a payload large enough to be
  // read straight into its target, then a header whose magic is wrong.
  auto frame = [](uint8_t kind, uint64_t payload) {
    weft::transport::FrameHeader h;
    h.kind = kind;
    h.tag = 7;
    h.seq = 1;
    h.msg_bytes = payload;
    h.payload_bytes = payload;
    return std::string(reinterpret_cast<const char*>(&h), sizeof h) + std::string(payload, 'p');
  };
  write("tcp_frame_fuzzer", "frames", frame(1, 0) + frame(2, 100) + frame(3, 5000));
  std::string bad = frame(1, 8);
  bad[0] ^= 1;
  write("tcp_frame_fuzzer", "bad_magic", frame(2, 16) + bad);
  write("tcp_frame_fuzzer", "truncated", frame(2, 64).substr(0, 90));

  r::Announcement a;
  a.nonce = 0xfeedfacecafebeef;
  a.world_size = 4;
  a.requested_rank = 2;
  a.store_port = 29500;
  a.heard = 3;
  a.digest = 0x0123456789abcdef;
  a.group_hex = "6a6f62";
  write("discovery_announcement_fuzzer", "announcement", r::encode_announcement(a));
  a.requested_rank = -1;
  a.heard = 0;
  a.group_hex = "";
  write("discovery_announcement_fuzzer", "no_rank_empty_group", r::encode_announcement(a));
  return 0;
}

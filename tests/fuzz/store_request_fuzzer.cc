// The rendezvous store server's input: what any process that reaches its port sends.
// The bytes are one connection's stream; like the server, the target cuts it into
// length-prefixed records (under the limit before or after authentication, chosen by
// the first byte) and parses each. Checks that a record is refused only with a
// weft::Error, that an accepted request has 1 to kMaxStoreKeys keys and encodes back to
// exactly the bytes it came from, and that its timeout gives a deadline no earlier
// than now.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rendezvous/tcp_store_protocol.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

namespace r = weft::rendezvous;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint32_t limit = data[0] & 1 ? r::kMaxPreAuthRecord : r::kMaxStoreRecord;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (true) {
    const r::RecordFrame frame = r::frame_record(in, limit);
    if (frame.state != r::RecordFrame::kComplete) {
      FUZZ_CHECK(frame.state == r::RecordFrame::kIncomplete || frame.length > limit,
                 "a record within the limit was called too long");
      break;
    }
    FUZZ_CHECK(frame.length <= limit && in.size() >= 4 + frame.length, "a record past the input");
    const std::string_view record = in.substr(4, frame.length);
    in.remove_prefix(4 + frame.length);
    r::StoreRequest request;
    try {
      request = r::parse_request(record);
    } catch (const weft::Error&) {
      continue;  // the server replies kBadRequest and drops the connection
    }
    FUZZ_CHECK(!request.keys.empty() && request.keys.size() <= r::kMaxStoreKeys, "key count");
    FUZZ_CHECK(r::encode_request(request) == record, "parse and encode are not inverse");
    const auto now = std::chrono::steady_clock::now();
    FUZZ_CHECK(r::request_deadline(now, request.timeout_ms) >= now, "a deadline in the past");
  }
  return 0;
}

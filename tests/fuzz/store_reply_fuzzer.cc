// The rendezvous store client's input: the replies of whatever answers at
// MASTER_ADDR:MASTER_PORT, and the refusal a closing server leaves unread. Checks that
// a reply is refused only with a weft::Error; that a status reply re-encoded from what
// was parsed parses to the same status and text; that the typed readers of kOk bodies
// (value, counter, flag) throw nothing but weft::Error; and that a refusal is found only
// inside the bytes given, and found again when written by the server's encoder.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "rendezvous/tcp_store_protocol.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

namespace r = weft::rendezvous;

namespace {

std::string with_length(const std::string& record) {
  uint32_t len = static_cast<uint32_t>(record.size());
  std::string out(reinterpret_cast<const char*>(&len), sizeof len);
  return out + record;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  try {
    r::StoreReply reply = r::parse_reply(in);
    if (reply.status != r::StoreStatus::kOk) {
      r::StoreReply again = r::parse_reply(r::encode_status_reply(reply.status, reply.message));
      FUZZ_CHECK(again.status == reply.status && again.message == reply.message,
                 "a status reply does not survive encoding");
    }
  } catch (const weft::Error&) {
  }
  try {
    r::reply_value(in);
  } catch (const weft::Error&) {
  }
  try {
    r::reply_counter(in);
  } catch (const weft::Error&) {
  }
  try {
    r::reply_flag(in);
  } catch (const weft::Error&) {
  }
  std::optional<std::string> refusal = r::parse_refusal(in);
  if (refusal) {
    FUZZ_CHECK(refusal->size() + 9 <= size, "a refusal longer than the bytes it came from");
    std::optional<std::string> again =
        r::parse_refusal(with_length(r::encode_status_reply(r::StoreStatus::kRefused, *refusal)));
    FUZZ_CHECK(again == refusal, "a refusal does not survive encoding");
  }
  return 0;
}

// The TCP connector's records: the contact record read from the store (another process
// wrote it), and on a new connection the hello (from whoever dialed the port) and the
// answer (from whoever listens at the address dialed). The same bytes go to all three
// parsers. Checks that each refuses only with a weft::Error, and that what a parser
// accepts encodes back to the bytes it read (contact record, hello: a prefix of the
// input) or parses back to itself (answer, whose flag byte is any non-zero value).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "transport/tcp/handshake.h"
#include "weft/error.h"

namespace t = weft::transport::tcp;

namespace {

bool is_prefix(const std::string& prefix, const std::string& of) {
  return of.compare(0, prefix.size(), prefix) == 0 && prefix.size() <= of.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  try {
    t::ContactRecord r = t::parse_contact_record(in);
    FUZZ_CHECK(r.hosts.size() * 4 + 8 <= in.size(), "more hosts than the record holds");
    FUZZ_CHECK(is_prefix(t::encode_contact_record(r), in), "contact record does not round-trip");
  } catch (const weft::Error&) {
  }
  bool fixed_ok = false;
  t::Hello fixed;
  try {
    fixed = t::parse_hello(in, false);
    fixed_ok = true;
  } catch (const weft::Error&) {
  }
  try {
    t::Hello h = t::parse_hello(in, true);
    FUZZ_CHECK(fixed_ok, "a hello accepted with its token but not without");
    FUZZ_CHECK(h.magic == fixed.magic && h.version == fixed.version && h.job_id == fixed.job_id &&
                   h.from == fixed.from && h.to == fixed.to,
               "the token changes the fixed fields");
    FUZZ_CHECK(is_prefix(t::encode_hello(h), in), "hello does not round-trip");
  } catch (const weft::Error&) {
  }
  try {
    t::HelloAnswer a = t::parse_answer(in, "fuzz");
    FUZZ_CHECK(a.reason.size() + 9 <= in.size(), "a reason longer than the record");
    t::HelloAnswer again = t::parse_answer(t::encode_answer(a), "fuzz");
    FUZZ_CHECK(again.accepted == a.accepted && again.reason == a.reason,
               "answer does not round-trip");
  } catch (const weft::Error&) {
  }
  return 0;
}

// The multicast discovery's datagrams (tcp://[group]:port): anyone on the network may
// send to the group. Checks that decoding never throws, and that an announcement it
// accepts encodes to text that decodes to the same announcement, and encodes again to
// the same text (a fixed point after one step: the input may spell numbers differently).
#include <cstddef>
#include <cstdint>
#include <string>

#include "rendezvous/discovery_announcement.h"
#include "tests/fuzz/fuzz_check.h"

namespace r = weft::rendezvous;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A datagram is at most 1024 bytes (kMaxDatagram); longer input finds nothing new.
  if (size > 1024) return 0;
  r::Announcement a;
  if (!r::decode_announcement(std::string(reinterpret_cast<const char*>(data), size), a)) {
    return 0;
  }
  const std::string text = r::encode_announcement(a);
  r::Announcement b;
  FUZZ_CHECK(r::decode_announcement(text, b), "an encoded announcement does not decode");
  FUZZ_CHECK(a.nonce == b.nonce && a.world_size == b.world_size &&
                 a.requested_rank == b.requested_rank && a.store_port == b.store_port &&
                 a.heard == b.heard && a.digest == b.digest && a.group_hex == b.group_hex,
             "an announcement does not survive encoding");
  FUZZ_CHECK(r::encode_announcement(b) == text, "encoding is not a fixed point");
  return 0;
}

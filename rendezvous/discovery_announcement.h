// The datagram a member of a multicast discovery (multicast_discovery.h) sends to the
// group: one line of text, "weft-discovery-1 NONCE WORLD_SIZE RANK PORT HEARD DIGEST
// gGROUPHEX". Anyone on the network can send to the group, so decoding takes any bytes.
#pragma once

#include <cstdint>
#include <string>

namespace weft::rendezvous {

struct Announcement {
  uint64_t nonce = 0;
  int world_size = 0;
  int requested_rank = -1;  // -1: none
  uint16_t store_port = 0;
  int heard = 0;
  uint64_t digest = 0;  // of the nonces heard: equal digests, equal member lists
  std::string group_hex;
};

std::string encode_announcement(const Announcement& a);

// False, leaving `a` partly written, for anything that is not an announcement.
bool decode_announcement(const std::string& text, Announcement& a);

}  // namespace weft::rendezvous

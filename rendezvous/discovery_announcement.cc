#include "rendezvous/discovery_announcement.h"

#include <sstream>

namespace weft::rendezvous {
namespace {

const char* kMagic = "weft-discovery-1";

}  // namespace

std::string encode_announcement(const Announcement& a) {
  std::ostringstream out;
  out << kMagic << ' ' << a.nonce << ' ' << a.world_size << ' ' << a.requested_rank << ' '
      << a.store_port << ' ' << a.heard << ' ' << a.digest << " g"
      << a.group_hex;  // "g": never an empty field
  return out.str();
}

bool decode_announcement(const std::string& text, Announcement& a) {
  std::istringstream in(text);
  std::string magic;
  in >> magic >> a.nonce >> a.world_size >> a.requested_rank >> a.store_port >> a.heard >>
      a.digest >> a.group_hex;
  if (in.fail() || magic != kMagic || a.group_hex.empty() || a.group_hex[0] != 'g') return false;
  a.group_hex.erase(0, 1);
  return true;
}

}  // namespace weft::rendezvous

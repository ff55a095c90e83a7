// The records TcpConnector exchanges, apart from its sockets so that they can be tested
// (and fuzzed) on plain bytes: the contact record each process publishes in the store,
// the hello a dialing rank sends first on a new connection, and the answer to it. All
// are WireWriter records; a reader that runs past one throws Error(kInternal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::transport::tcp {

inline constexpr uint32_t kHelloMagic = 0x57464c4b;  // "WFLK"
inline constexpr uint32_t kProtocolVersion = 2;      // 2: the hello carries WEFT_AUTH_TOKEN
inline constexpr uint32_t kMaxHandshake = 4096;

// Where a process listens: a port, and the addresses it advertises.
struct ContactRecord {
  uint16_t port = 0;
  std::vector<std::string> hosts;
};
std::string encode_contact_record(const ContactRecord& r);
ContactRecord parse_contact_record(const std::string& record);

struct Hello {
  uint32_t magic = kHelloMagic;
  uint32_t version = kProtocolVersion;
  uint64_t job_id = 0;
  int from = 0;  // the dialing rank
  int to = 0;    // the rank it means to reach
  std::string token;
};
std::string encode_hello(const Hello& h);
// The fixed fields of a hello; the token too when `with_token` (a process that needs
// none does not read it, as version 2 peers always send one).
Hello parse_hello(const std::string& record, bool with_token);

// The answer to a hello: accepted, or refused saying why.
struct HelloAnswer {
  bool accepted = false;
  std::string reason;
};
std::string encode_answer(const HelloAnswer& a);
// Error(kPeer) "`what`: not a weft peer" when the magic is wrong.
HelloAnswer parse_answer(const std::string& record, const std::string& what);

}  // namespace weft::transport::tcp

#include "transport/tcp/handshake.h"

#include "base/wire.h"
#include "weft/error.h"

namespace weft::transport::tcp {

std::string encode_contact_record(const ContactRecord& r) {
  base::WireWriter w;
  w.u32(static_cast<uint32_t>(r.port)).u32(static_cast<uint32_t>(r.hosts.size()));
  for (const auto& host : r.hosts) w.str(host);
  return w.take();
}

ContactRecord parse_contact_record(const std::string& record) {
  base::WireReader in(record, "tcp contact record");
  ContactRecord r;
  // Written from a uint16_t: anything larger is a corrupt record, not a port to cut down
  // to 16 bits and dial.
  const uint32_t port = in.u32();
  if (port > UINT16_MAX) {
    throw Error(ErrorCode::kInternal,
                "malformed tcp contact record: port " + std::to_string(port) + " is over 65535");
  }
  r.port = static_cast<uint16_t>(port);
  uint32_t n = in.u32();
  for (uint32_t i = 0; i < n; ++i) r.hosts.push_back(in.str());
  return r;
}

std::string encode_hello(const Hello& h) {
  return base::WireWriter()
      .u32(h.magic)
      .u32(h.version)
      .u64(h.job_id)
      .u32(static_cast<uint32_t>(h.from))
      .u32(static_cast<uint32_t>(h.to))
      .str(h.token)
      .take();
}

Hello parse_hello(const std::string& record, bool with_token) {
  base::WireReader in(record, "handshake");
  Hello h;
  h.magic = in.u32();
  h.version = in.u32();
  h.job_id = in.u64();
  h.from = static_cast<int>(in.u32());
  h.to = static_cast<int>(in.u32());
  if (with_token) h.token = in.str();
  return h;
}

std::string encode_answer(const HelloAnswer& a) {
  return base::WireWriter().u32(kHelloMagic).u8(a.accepted ? 1 : 0).str(a.reason).take();
}

HelloAnswer parse_answer(const std::string& record, const std::string& what) {
  base::WireReader in(record, "handshake answer");
  if (in.u32() != kHelloMagic) throw Error(ErrorCode::kPeer, what + ": not a weft peer");
  HelloAnswer a;
  a.accepted = in.u8() != 0;
  a.reason = in.str();
  return a;
}

}  // namespace weft::transport::tcp

#include "runtime/init/peer_record.h"

#include "base/wire.h"

namespace weft::runtime {

std::string PeerRecord::encode() const {
  return base::WireWriter()
      .str(host.hostname)
      .str(host.boot_id)
      .u64(host.net_namespace)
      .u64(host.ipc_namespace)
      .u64(host.pid_namespace)
      .u64(host.shm_device)
      .i64(pid)
      .str(tcp)
      .u8(shm ? 1 : 0)
      .u8(static_cast<uint8_t>(ib))
      .take();
}

PeerRecord PeerRecord::decode(const std::string& bytes, int rank) {
  std::string what = "rendezvous record of rank " + std::to_string(rank);
  base::WireReader in(bytes, what.c_str());
  PeerRecord r;
  r.host.hostname = in.str();
  r.host.boot_id = in.str();
  r.host.net_namespace = in.u64();
  r.host.ipc_namespace = in.u64();
  r.host.pid_namespace = in.u64();
  r.host.shm_device = in.u64();
  r.pid = in.i64();
  r.tcp = in.str();
  r.shm = in.u8() != 0;
  const uint8_t ib = in.u8();
  r.ib = ib <= static_cast<uint8_t>(Verbs::kAsked) ? static_cast<Verbs>(ib) : Verbs::kNo;
  return r;
}

}  // namespace weft::runtime

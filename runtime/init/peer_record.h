// PeerRecord: what each rank publishes about itself during the rendezvous: who it is
// (for error messages and for deciding which transports reach it) and the contact
// records of its transports.
#pragma once

#include <cstdint>
#include <string>

#include "base/host_identity.h"

namespace weft::runtime {

struct PeerRecord {
  base::HostIdentity host;
  int64_t pid = 0;
  std::string tcp;  // TcpConnector::record()
  // Whether this rank may use shared memory at all (its backend and WEFT_TRANSPORTS):
  // a peer that may not is reached over TCP, whatever the other side allows.
  bool shm = true;
  // Whether it may use verbs (its backend and WEFT_TRANSPORTS), and for which peers.
  enum class Verbs : uint8_t {
    kNo = 0,
    kOtherHosts = 1,  // the default: peers on other hosts, where both ends can
    kAsked = 2,       // WEFT_TRANSPORTS names ib: every peer shared memory does not serve
  };
  Verbs ib = Verbs::kNo;

  std::string encode() const;
  // `rank` names the record in errors.
  static PeerRecord decode(const std::string& bytes, int rank);
};

}  // namespace weft::runtime

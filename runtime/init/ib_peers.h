// IbPeers: which peers this rank reaches through verbs (InfiniBand or RoCE), and the
// set-up of those links during init_process_group, after the TCP mesh and the
// shared-memory exchange.
//
//   1. A pair is a candidate when both ranks may use verbs (PeerRecord::ib), shared
//      memory does not serve it, its TCP connection is made at init (with lazy
//      connections, the peers connected on first use stay on tcp), and either rank
//      named ib in WEFT_TRANSPORTS or the two are on different hosts (or network
//      namespaces). Every input is known to both ranks, so both decide alike.
//   2. A rank with candidates opens one usable port (WEFT_IB_HCA, WEFT_IB_GID_INDEX)
//      once, with its protection domain: one near the NUMA node it runs on, and among
//      those equally near, the rail of its index on its host (transport/ib/port_choice.h;
//      an INFO line says which and why). It publishes the port's address, or why it has
//      none. A rank without candidates loads nothing.
//   3. A candidate pair uses verbs when both have a port and the ports share a fabric,
//      whichever rails they are: the same link layer; on InfiniBand the same subnet
//      prefix; on RoCE the same version, and for v1 or IPv6 GIDs the same /64 prefix
//      (RoCE v2 over IPv4 is routed, as TCP is). Otherwise one INFO line says why, and
//      it uses tcp.
//   4. Each rank makes one queue pair per verbs peer, its receives posted, publishes
//      their numbers, connects each to its peer's (RTR, RTS) and says so; a rank
//      returns only once its verbs peers have all said so, so no first SEND meets a
//      queue pair that is not ready.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "base/socket.h"
#include "rendezvous/store.h"
#include "runtime/init/peer_record.h"
#include "runtime/init/transports.h"
#include "transport/ib/ib_endpoint.h"
#include "transport/ib/ib_link.h"
#include "transport/ib/registration_cache.h"
#include "transport/ib/verbs_context.h"
#include "transport/link.h"

namespace weft::runtime {

struct IbOptions {
  transport::ib::EndpointOptions endpoint;
  transport::ib::RegistrationCache::Limits registrations;
  transport::ib::IbLinkOptions link;
};

// WEFT_IB_EAGER_BYTES, WEFT_IB_RECV_BUFFERS and WEFT_IB_REG_CACHE(_ENTRIES, _BYTES)
// over the defaults; InvalidArgument naming a variable whose value is out of range.
IbOptions ib_options_from_env();

class IbPeers {
 public:
  IbPeers(const std::vector<PeerRecord>& records, int rank, IbOptions options);
  ~IbPeers();

  // Steps 1 to 4 through the job's store. `connected_at_init[r]`: the pair's TCP
  // connection is made now; `shm_reaches[r]`: shared memory serves the pair.
  void exchange(rendezvous::Store& store, base::Deadline deadline,
                const std::vector<bool>& connected_at_init, const std::vector<bool>& shm_reaches);

  bool reaches(int peer) const;
  // Why verbs serve `peer` ("WEFT_TRANSPORTS names ib"; "" for a peer on another host,
  // which is what they are for) or why they do not ("rank 3 has no usable verbs port:
  // ..."), for the lines and errors of init.
  std::string reason(int peer) const;
  // The link to `peer` (reaches(peer) must hold); `socket` is the pair's connection.
  std::unique_ptr<transport::Link> make_link(int peer, base::Fd socket,
                                             transport::LinkHandler& handler);

 private:
  struct Pair {
    int rank = -1;
    bool usable = false;
    std::string reason;
    std::unique_ptr<transport::ib::IbEndpoint> endpoint;
  };
  Pair* find(int peer);
  const Pair* find(int peer) const;
  // Step 2: opens the port, or says why there is none.
  void open_port();

  const std::vector<PeerRecord>& records_;
  int rank_;
  IbOptions options_;
  std::vector<Pair> pairs_;  // the candidates
  std::shared_ptr<transport::ib::VerbsContext> context_;
  std::string no_port_;  // why this rank has no port, when context_ is null
};

}  // namespace weft::runtime

// ShmPeers: which peers this rank reaches through shared memory, and the set-up of
// those links during init_process_group.
//
//   1. Peers qualify when they share memory with this process (HostIdentity): same
//      boot, IPC and PID namespaces and /dev/shm. Containers on one host do not.
//   2. Each rank with local peers creates its inbox (one ring per local sender), sized
//      and checked against the free space of /dev/shm, and announces it in the store.
//   3. Each maps its local peers' inboxes and probes process_vm_readv against each peer,
//      then publishes what worked. A pair uses shared memory only if both sides mapped
//      each other's inbox, so the decision is the same on both.
//   4. Once every local peer has reported, the inbox is unlinked from /dev/shm: from
//      then on nothing is left behind, however the job ends.
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
#include "transport/link.h"
#include "transport/shm/inbox.h"
#include "transport/shm/segment.h"

namespace weft::runtime {

struct ShmOptions {
  uint64_t ring_bytes = 256 << 10;     // per sender; rounded up to a power of two
  uint64_t eager_limit = 64 << 10;     // the ring must hold two eager frames
  uint64_t single_copy_min_bytes = 0;  // streams below this are copied through the ring
};

// WEFT_SHM_RING_BYTES and WEFT_SHM_SINGLE_COPY_BYTES over the defaults.
ShmOptions shm_options_from_env(uint64_t eager_limit);

class ShmPeers {
 public:
  // Steps 1 and 2 (creates the inbox, announces nothing yet).
  ShmPeers(const std::vector<PeerRecord>& records, int rank, uint64_t job_id,
           const TransportChoice& transports, ShmOptions options);
  ~ShmPeers();

  // Steps 2 to 4, through the job's store.
  void exchange(rendezvous::Store& store, base::Deadline deadline);

  bool reaches(int peer) const;
  // Whether `peer` shares memory with this process (before the exchange says whether
  // the pair can use it): a peer connected at init even when the others are lazy.
  bool local(int peer) const { return find(peer) != nullptr; }
  // The link to `peer` (reaches(peer) must hold); `socket` is the pair's connection.
  std::unique_ptr<transport::Link> make_link(int peer, base::Fd socket,
                                             transport::LinkHandler& handler);

 private:
  struct Local {
    int rank;
    transport::shm::RingView inbound;                // theirs to this rank, in this rank's inbox
    std::shared_ptr<transport::shm::Segment> inbox;  // theirs, once mapped
    transport::shm::RingView outbound;               // this rank's to them, in their inbox
    std::string why_not;                             // why shared memory does not reach them
    bool i_read_theirs = false;                      // process_vm_readv into their memory works
    std::string why_no_single_copy;
    bool they_read_mine = false;
    std::string they_cannot_read_because;
    bool usable = false;
  };
  // Maps the inbox `name` that `peer` announced, noting why not where it cannot.
  void map_peer(Local& peer, const std::string& name);
  const Local* find(int peer) const;

  const std::vector<PeerRecord>& records_;
  int rank_;
  ShmOptions options_;
  std::vector<Local> locals_;
  std::shared_ptr<transport::shm::Segment> inbox_;
  // Read by the peers' process_vm_readv probe; lives on the heap at a stable address.
  std::unique_ptr<uint64_t> probe_value_;
};

}  // namespace weft::runtime

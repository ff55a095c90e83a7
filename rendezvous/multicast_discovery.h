// tcp://[multicast-address]:port: the members of a job find each other by UDP datagrams
// to a multicast group (IPv4 224.0.0.0/4 or IPv6 ff00::/8), then meet in the TCP store
// of the member that becomes rank 0.
//
// Every member announces itself every kResendInterval (so a lost datagram only delays):
// a random nonce, the group_name, world_size, the rank it asks for (or none), the port
// of the store it would host, and how many members it has heard of with a digest of
// their nonces. Datagrams of other group names or sizes are ignored. A member's list is
// final once it holds world_size members; once every member on it reports the same
// list, all of them hold it, and each assigns ranks the same way: requested ranks first,
// then the free ranks in order of nonce. A member that finds someone on its list
// reporting a full list other than its own fails: more processes answered than
// world_size. Announcing goes on in the background while the job lives (until the object
// is destroyed), less often once it has assembled: for members that have not yet heard
// the last announcements, and so that a process arriving late finds the list full and
// fails at once instead of waiting out its timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "base/deadline.h"

namespace weft::rendezvous {

struct DiscoveredJob {
  int rank = 0;
  std::string store_host;  // rank 0's address, as its datagrams arrived from
  uint16_t store_port = 0;
};

class MulticastDiscovery {
 public:
  static constexpr std::chrono::milliseconds kResendInterval{100};
  static constexpr std::chrono::milliseconds kAssembledInterval{500};

  // Joins the multicast group on the interface of WEFT_SOCKET_IFNAME, or the one the
  // routing table picks, and starts announcing. `candidate_store_port` is the port of
  // the store this member hosts should it become rank 0. InvalidArgument naming the
  // address when the group cannot be joined.
  MulticastDiscovery(const std::string& group, uint16_t port, std::string group_name,
                     int world_size, int requested_rank, uint16_t candidate_store_port);
  ~MulticastDiscovery();  // stops announcing

  MulticastDiscovery(const MulticastDiscovery&) = delete;
  MulticastDiscovery& operator=(const MulticastDiscovery&) = delete;

  // Waits until every member has heard of every other. TimeoutError listing the members
  // heard of; InvalidArgument for too many members or a rank asked for twice.
  DiscoveredJob discover(base::Deadline deadline);

 private:
  struct State;
  void announce_loop();

  std::string where_;  // "tcp://[group]:port", for messages
  std::unique_ptr<State> state_;
  std::thread announcer_;
};

}  // namespace weft::rendezvous

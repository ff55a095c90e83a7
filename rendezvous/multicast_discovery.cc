#include "rendezvous/multicast_discovery.h"

#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>

#include "base/env.h"
#include "base/fnv_hash.h"
#include "base/hex.h"
#include "base/log.h"
#include "base/random_id.h"
#include "base/socket.h"
#include "rendezvous/discovery_announcement.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

constexpr size_t kMaxDatagram = 1024;

// Of the nonces in order (a std::map keeps them sorted).
template <typename Members>
uint64_t digest_of(const Members& members) {
  base::Fnv1a hash;
  for (const auto& entry : members) hash.add(entry.first);
  return hash.value();
}

}  // namespace

struct MulticastDiscovery::State {
  struct Member {
    int requested_rank = -1;
    std::string host;
    uint16_t store_port = 0;
    int heard = 0;
    uint64_t digest = 0;
  };

  base::Fd fd;
  base::SocketAddress group;
  Announcement self;
  std::string group_name;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<uint64_t, Member> members;  // by nonce, this member included once heard
  bool complete = false;               // frozen: everyone has heard of everyone
  std::string failure;
  bool stop = false;
};

MulticastDiscovery::MulticastDiscovery(const std::string& group, uint16_t port,
                                       std::string group_name, int world_size, int requested_rank,
                                       uint16_t candidate_store_port)
    : where_("tcp://" + base::format_host_port(group, port)), state_(std::make_unique<State>()) {
  State& s = *state_;
  s.group = base::resolve(group, port).front();
  s.self = {base::random_id(),           world_size, requested_rank, candidate_store_port, 0, 0,
            base::hex_encode(group_name)};
  s.group_name = group_name.empty() ? "default" : std::move(group_name);
  // This member, reached over loopback should it become rank 0 (only it dials itself by
  // this entry; the others use the address its datagrams came from).
  s.members[s.self.nonce] = {requested_rank, s.group.family() == AF_INET6 ? "::1" : "127.0.0.1",
                             candidate_store_port, 0, 0};
  const bool v6 = s.group.family() == AF_INET6;
  auto fail = [&](const std::string& step) {
    return InvalidArgument("init_process_group(" + where_ + "): " + step + ": " +
                           std::strerror(errno));
  };
  s.fd = base::Fd(socket(s.group.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.fd) throw fail("cannot open a UDP socket");
  int one = 1, hops = static_cast<int>(base::env::get_int("WEFT_MULTICAST_TTL", 1, 1, 255));
  // Every member on a host binds the same port.
  setsockopt(s.fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // IPv4: bound to the group, so only its datagrams arrive. IPv6 cannot bind a
  // link-scope group without naming the interface; the datagrams' magic filters there.
  base::SocketAddress bound = v6 ? base::resolve("::", port).front() : s.group;
  if (bind(s.fd.get(), bound.get(), bound.length) != 0) throw fail("cannot bind the group's port");
  auto ifname = base::env::get("WEFT_SOCKET_IFNAME");
  unsigned ifindex = ifname ? if_nametoindex(ifname->c_str()) : 0;
  if (ifname && ifindex == 0) {
    throw InvalidArgument("init_process_group(" + where_ + "): WEFT_SOCKET_IFNAME=" + *ifname +
                          ": no such interface");
  }
  if (v6) {
    ipv6_mreq join{};
    join.ipv6mr_multiaddr = reinterpret_cast<const sockaddr_in6*>(s.group.get())->sin6_addr;
    join.ipv6mr_interface = ifindex;
    if (setsockopt(s.fd.get(), IPPROTO_IPV6, IPV6_JOIN_GROUP, &join, sizeof join) != 0) {
      throw fail("cannot join the multicast group (is there a route for ff00::/8?)");
    }
    setsockopt(s.fd.get(), IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &one, sizeof one);
    setsockopt(s.fd.get(), IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops);
    if (ifindex) setsockopt(s.fd.get(), IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof ifindex);
  } else {
    ip_mreqn join{};
    join.imr_multiaddr = reinterpret_cast<const sockaddr_in*>(s.group.get())->sin_addr;
    join.imr_ifindex = static_cast<int>(ifindex);
    if (setsockopt(s.fd.get(), IPPROTO_IP, IP_ADD_MEMBERSHIP, &join, sizeof join) != 0) {
      throw fail("cannot join the multicast group (is there a route for 224.0.0.0/4?)");
    }
    setsockopt(s.fd.get(), IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof one);
    setsockopt(s.fd.get(), IPPROTO_IP, IP_MULTICAST_TTL, &hops, sizeof hops);
    if (ifindex) {
      ip_mreqn out{};
      out.imr_ifindex = static_cast<int>(ifindex);
      setsockopt(s.fd.get(), IPPROTO_IP, IP_MULTICAST_IF, &out, sizeof out);
    }
  }
  announcer_ = std::thread([this] { announce_loop(); });
}

MulticastDiscovery::~MulticastDiscovery() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  announcer_.join();
}

void MulticastDiscovery::announce_loop() {
  State& s = *state_;
  auto next_send = std::chrono::steady_clock::now();
  while (true) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.stop) return;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= next_send) {
      std::string datagram;
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.self.heard = static_cast<int>(s.members.size());
        s.self.digest = digest_of(s.members);
        datagram = encode_announcement(s.self);
      }
      // A failed send (no route yet, a full buffer) is retried with the next one.
      sendto(s.fd.get(), datagram.data(), datagram.size(), MSG_NOSIGNAL, s.group.get(),
             s.group.length);
      next_send = now + (s.complete ? kAssembledInterval : kResendInterval);
    }
    pollfd p{s.fd.get(), POLLIN, 0};
    // At most 50 ms, so that destruction (which sets stop) is not kept waiting.
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_send - now);
    int wait_ms = static_cast<int>(std::clamp<int64_t>(wait.count(), 1, 50));
    if (poll(&p, 1, wait_ms) <= 0) continue;
    char buffer[kMaxDatagram];
    sockaddr_storage from{};
    socklen_t from_length = sizeof from;
    ssize_t n = recvfrom(s.fd.get(), buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&from),
                         &from_length);
    Announcement a;
    if (n <= 0 || !decode_announcement(std::string(buffer, static_cast<size_t>(n)), a)) continue;
    if (a.group_hex != s.self.group_hex || a.world_size != s.self.world_size) continue;
    base::SocketAddress sender =
        base::SocketAddress::from(reinterpret_cast<sockaddr*>(&from), from_length);
    // A host whose only interface is loopback sends from the unspecified address.
    std::string host = sender.host();
    if (host == "0.0.0.0" || host == "::")
      host = s.group.family() == AF_INET6 ? "::1" : "127.0.0.1";
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.complete || !s.failure.empty()) continue;  // decided: later datagrams change nothing
    if (a.nonce == s.self.nonce) continue;           // our own, looped back
    const size_t n_wanted = static_cast<size_t>(s.self.world_size);
    bool is_new = !s.members.count(a.nonce);
    if (is_new && s.members.size() == n_wanted) {
      // A full list is final: members that saw it may have completed on it. One more
      // process is the newcomer's problem (it finds a full list that is not its own).
      continue;
    }
    s.members[a.nonce] = {a.requested_rank, host, a.store_port, a.heard, a.digest};
    if (s.members.size() == n_wanted) {
      // Complete when every member has heard of exactly these members: counting alone
      // would let two lists of the right size, sharing a member, both complete.
      const uint64_t mine = digest_of(s.members);
      s.complete = true;
      for (const auto& [nonce, m] : s.members) {
        if (nonce == s.self.nonce) continue;
        if (m.heard == s.self.world_size && m.digest != mine) {
          std::string list;
          for (const auto& [other, o] : s.members) list += (list.empty() ? "" : ", ") + o.host;
          s.failure = "more than " + std::to_string(n_wanted) + " processes answered for group '" +
                      s.group_name + "': the member at " + m.host +
                      " counts others than this one's (" + list +
                      "); world_size is too small, or two jobs share the address and group_name";
          s.complete = false;
          break;
        }
        if (m.heard != s.self.world_size || m.digest != mine) s.complete = false;
      }
    }
    if (is_new) next_send = std::chrono::steady_clock::now();  // tell the others at once
    s.changed.notify_all();
  }
}

DiscoveredJob MulticastDiscovery::discover(base::Deadline deadline) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  while (!s.complete && s.failure.empty()) {
    if (deadline.expired()) {
      std::string list;
      for (const auto& [nonce, m] : s.members) {
        list += (list.empty() ? "" : ", ") + m.host + " (heard of " + std::to_string(m.heard) + ")";
      }
      throw TimeoutError("init_process_group(" + where_ + "): " + std::to_string(s.members.size()) +
                         "/" + std::to_string(s.self.world_size) +
                         " members found before the deadline: " + (list.empty() ? "none" : list) +
                         " (multicast datagrams may not reach every host: check the route for "
                         "the group, WEFT_SOCKET_IFNAME and WEFT_MULTICAST_TTL)");
    }
    s.changed.wait_for(lock,
                       std::min<std::chrono::milliseconds>(deadline.remaining(), kResendInterval));
  }
  if (!s.failure.empty()) throw InvalidArgument("init_process_group(" + where_ + "): " + s.failure);

  // Requested ranks first, then the free ones in order of nonce: the same on every member.
  const int n = s.self.world_size;
  std::vector<uint64_t> by_rank(n, 0);
  std::vector<bool> taken(n, false);
  for (const auto& [nonce, m] : s.members) {
    if (m.requested_rank < 0) continue;
    if (m.requested_rank >= n || taken[m.requested_rank]) {
      throw InvalidArgument(
          "init_process_group(" + where_ + "): rank " + std::to_string(m.requested_rank) +
          (m.requested_rank >= n ? " is outside the world" : " was requested by two processes") +
          " (one at " + m.host + ")");
    }
    taken[m.requested_rank] = true;
    by_rank[m.requested_rank] = nonce;
  }
  int next_free = 0;
  for (const auto& [nonce, m] : s.members) {
    if (m.requested_rank >= 0) continue;
    while (taken[next_free]) ++next_free;
    taken[next_free] = true;
    by_rank[next_free] = nonce;
  }
  DiscoveredJob job;
  job.rank =
      static_cast<int>(std::find(by_rank.begin(), by_rank.end(), s.self.nonce) - by_rank.begin());
  const State::Member& root = s.members.at(by_rank[0]);
  job.store_host = root.host;
  job.store_port = root.store_port;
  WEFT_LOG(INFO) << where_ << ": " << n << " members found; this one is rank " << job.rank
                 << ", rank 0 at " << base::format_host_port(root.host, root.store_port);
  return job;
}

}  // namespace weft::rendezvous

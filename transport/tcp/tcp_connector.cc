#include "transport/tcp/tcp_connector.h"

#include <netinet/in.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/env.h"
#include "base/log.h"
#include "base/wire.h"
#include "weft/error.h"

namespace weft::transport::tcp {
namespace {

constexpr uint32_t kHelloMagic = 0x57464c4b;  // "WFLK"
constexpr uint32_t kProtocolVersion = 2;      // 2: the handshake carries WEFT_AUTH_TOKEN
constexpr uint32_t kMaxHandshake = 4096;
// One dial attempt, and reading a handshake, may take at most this long, so that a
// silent address or a stray client cannot use up the whole rendezvous deadline.
constexpr auto kStepLimit = std::chrono::seconds(10);

base::Fd listen_wildcard() {
  // A dual-stack IPv6 socket takes IPv4 connections as well; hosts without IPv6 get an
  // IPv4 one.
  for (const char* any : {"::", "0.0.0.0"}) {
    try {
      return base::listen_on(base::resolve(any, 0).front(), SOMAXCONN);
    } catch (const Error&) {
    }
  }
  throw Error(ErrorCode::kInternal, "cannot open a listening socket for peer connections");
}

std::string auth_token() { return base::env::get("WEFT_AUTH_TOKEN").value_or(""); }

std::string hello(uint64_t job_id, int from, int to) {
  return base::WireWriter()
      .u32(kHelloMagic)
      .u32(kProtocolVersion)
      .u64(job_id)
      .u32(from)
      .u32(to)
      .str(auth_token())
      .take();
}

}  // namespace

TcpConnector::TcpConnector(const std::optional<std::string>& ifname,
                           const base::SocketAddress& route)
    : loopback_for_same_host_(!ifname) {
  std::vector<std::string> addresses = base::advertised_addresses(ifname, route);
  listener_ = listen_wildcard();
  base::set_nonblocking(listener_.get(), true);
  uint16_t port = base::local_address(listener_.get()).port();
  base::WireWriter w;
  w.u32(static_cast<uint32_t>(port)).u32(static_cast<uint32_t>(addresses.size()));
  for (const auto& host : addresses) w.str(host);
  record_ = w.take();
}

namespace {

struct ContactRecord {
  uint16_t port;
  std::vector<std::string> hosts;
};

ContactRecord parse_record(const std::string& record) {
  base::WireReader in(record, "tcp contact record");
  ContactRecord r;
  r.port = static_cast<uint16_t>(in.u32());
  uint32_t n = in.u32();
  for (uint32_t i = 0; i < n; ++i) r.hosts.push_back(in.str());
  return r;
}

}  // namespace

std::string TcpConnector::describe_record(const std::string& record) {
  ContactRecord r = parse_record(record);
  std::string out;
  for (const auto& host : r.hosts)
    out += (out.empty() ? "" : ", ") + base::format_host_port(host, r.port);
  return out.empty() ? "no routable address, port " + std::to_string(r.port) : out;
}

base::Fd TcpConnector::dial(int rank, int peer, const std::string& record, bool same_network,
                            base::Deadline deadline) {
  ContactRecord r = parse_record(record);
  std::vector<std::string> hosts;
  // Every peer listens on all its addresses, so one on this host and network namespace
  // is reached over loopback, whatever it advertised.
  if (same_network && loopback_for_same_host_) hosts.push_back("127.0.0.1");
  for (const auto& host : r.hosts) {
    bool loopback = base::resolve(host, r.port).front().is_loopback();
    if (!loopback || same_network) hosts.push_back(host);
  }
  std::string errors;
  for (const auto& host : hosts) {
    try {
      return connect_to(base::resolve(host, r.port).front(),
                        deadline.min(base::Deadline::after(kStepLimit)));
    } catch (const Error& e) {
      errors += std::string(errors.empty() ? "" : "; ") + e.what();
    }
  }
  throw Error(ErrorCode::kPeer, "rank " + std::to_string(rank) + " could not connect to rank " +
                                    std::to_string(peer) + " at " + describe_record(record) + ": " +
                                    (errors.empty() ? "no usable address" : errors));
}

std::vector<base::Fd> TcpConnector::connect_all(int rank, const std::vector<std::string>& records,
                                                const std::vector<bool>& same_network,
                                                uint64_t job_id, base::Deadline deadline,
                                                const std::function<void()>& check_abort) {
  const int world = static_cast<int>(records.size());
  std::vector<base::Fd> fds(world);

  // Dial every lower rank and introduce ourselves; the answers are read at the end, so
  // that dialing never waits on a peer that is itself still dialing.
  for (int peer = 0; peer < rank; ++peer) {
    fds[peer] = dial(rank, peer, records[peer], same_network[peer], deadline);
    send_record(fds[peer].get(), hello(job_id, rank, peer), deadline,
                "handshake with rank " + std::to_string(peer));
  }

  // Accept every higher rank.
  int missing = world - rank - 1;
  while (missing > 0) {
    pollfd p{listener_.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, deadline.poll_ms(static_cast<int>(kAbortCheckInterval.count())));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      check_abort();
      if (!deadline.expired()) continue;
      std::string ranks;
      for (int peer = rank + 1; peer < world; ++peer) {
        if (!fds[peer]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(peer);
      }
      throw TimeoutError("rank " + std::to_string(rank) + ": rank(s) " + ranks +
                         " did not connect before the deadline (this rank listens on " +
                         describe_record(record_) + ")");
    }
    sockaddr_storage from_addr{};
    socklen_t len = sizeof from_addr;
    base::Fd fd(
        ::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&from_addr), &len, SOCK_CLOEXEC));
    if (!fd) continue;
    std::string from =
        base::SocketAddress::from(reinterpret_cast<sockaddr*>(&from_addr), len).to_string();
    std::string reject;
    int peer = -1;
    try {
      std::string h =
          recv_record(fd.get(), kMaxHandshake, deadline.min(base::Deadline::after(kStepLimit)),
                      "handshake from " + from);
      base::WireReader in(h, "handshake");
      uint32_t magic = in.u32(), version = in.u32();
      uint64_t their_job = in.u64();
      int sender = static_cast<int>(in.u32()), target = static_cast<int>(in.u32());
      if (magic != kHelloMagic) {
        throw Error(ErrorCode::kPeer, "not a weft peer (bad handshake)");
      }
      if (version != kProtocolVersion) {
        reject = "protocol version " + std::to_string(version) + " where " +
                 std::to_string(kProtocolVersion) + " was expected";
      } else if (std::string token = auth_token();
                 !token.empty() && !base::same_secret(in.str(), token)) {
        reject = "wrong or missing WEFT_AUTH_TOKEN";
      } else if (their_job != job_id) {
        reject = "it belongs to another job";
      } else if (target != rank || sender <= rank || sender >= world) {
        reject = "rank " + std::to_string(sender) + " dialed rank " + std::to_string(target) +
                 ", which does not fit this rank " + std::to_string(rank) + " of " +
                 std::to_string(world);
      } else if (fds[sender]) {
        reject = "rank " + std::to_string(sender) + " is already connected";
      } else {
        peer = sender;
      }
      base::WireWriter ack;
      ack.u32(kHelloMagic).u8(peer >= 0 ? 1 : 0).str(reject);
      send_record(fd.get(), ack.take(), deadline.min(base::Deadline::after(kStepLimit)),
                  "handshake with " + from);
    } catch (const Error& e) {
      reject = e.what();
      peer = -1;
    }
    if (peer < 0) {
      WEFT_LOG_LIMITED(WARN) << "rank " << rank << ": refused a connection from " << from << ": "
                             << reject;
      continue;
    }
    fds[peer] = std::move(fd);
    --missing;
  }

  for (int peer = 0; peer < rank; ++peer) {
    std::string what = "handshake with rank " + std::to_string(peer);
    std::string a = recv_record(fds[peer].get(), kMaxHandshake, deadline, what);
    base::WireReader in(a, "handshake answer");
    if (in.u32() != kHelloMagic) throw Error(ErrorCode::kPeer, what + ": not a weft peer");
    bool ok = in.u8() != 0;
    std::string reason = in.str();
    if (!ok) {
      throw Error(ErrorCode::kPeer, "rank " + std::to_string(peer) +
                                        " refused the connection from rank " +
                                        std::to_string(rank) + ": " + reason);
    }
  }
  return fds;
}

}  // namespace weft::transport::tcp

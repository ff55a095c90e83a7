#include "transport/tcp/tcp_connector.h"

#include <netinet/in.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "base/env.h"
#include "base/log.h"
#include "transport/tcp/handshake.h"
#include "weft/error.h"

namespace weft::transport::tcp {
namespace {

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
  Hello h;
  h.job_id = job_id;
  h.from = from;
  h.to = to;
  h.token = auth_token();
  return encode_hello(h);
}

}  // namespace

TcpConnector::TcpConnector(const std::optional<std::string>& ifname,
                           const base::SocketAddress& route)
    : loopback_for_same_host_(!ifname) {
  std::vector<std::string> addresses = base::advertised_addresses(ifname, route);
  listener_ = listen_wildcard();
  base::set_nonblocking(listener_.get(), true);
  uint16_t port = base::local_address(listener_.get()).port();
  record_ = encode_contact_record({port, std::move(addresses)});
}

std::string TcpConnector::describe_record(const std::string& record) {
  ContactRecord r = parse_contact_record(record);
  std::string out;
  for (const auto& host : r.hosts)
    out += (out.empty() ? "" : ", ") + base::format_host_port(host, r.port);
  return out.empty() ? "no routable address, port " + std::to_string(r.port) : out;
}

base::Fd TcpConnector::dial(int rank, int peer, const std::string& record, bool same_network,
                            base::Deadline deadline) {
  ContactRecord r = parse_contact_record(record);
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

namespace {

// Connections that have not finished their handshake at once, in one process.
constexpr size_t kMaxPendingHandshakes = 256;

// An accepted connection whose handshake record is still arriving (non-blocking).
struct PendingHandshake {
  base::Fd fd;
  std::string from;
  std::string in;  // the bytes so far: a 32-bit length, then the record
  base::Deadline deadline;

  // Reads what has arrived; an error text if the connection failed or misbehaves.
  std::string read_some() {
    char buf[kMaxHandshake + sizeof(uint32_t)];
    const size_t want = sizeof buf - in.size();
    ssize_t n;
    do {
      n = ::recv(fd.get(), buf, want, 0);
    } while (n < 0 && errno == EINTR);
    if (n == 0) return "it closed the connection during the handshake";
    if (n < 0) {
      return errno == EAGAIN || errno == EWOULDBLOCK ? "" : std::string(std::strerror(errno));
    }
    in.append(buf, static_cast<size_t>(n));
    if (in.size() >= sizeof(uint32_t) && length() > kMaxHandshake) {
      return "handshake of " + std::to_string(length()) + " bytes exceeds the limit";
    }
    return "";
  }
  uint32_t length() const {
    uint32_t len;
    std::memcpy(&len, in.data(), sizeof len);
    return len;
  }
  bool complete() const {
    return in.size() >= sizeof(uint32_t) && in.size() >= sizeof(uint32_t) + length();
  }
  std::string record() const { return in.substr(sizeof(uint32_t), length()); }
};

// Checks a complete hello and answers it; an empty string and `peer` set if the
// connection is rank `peer`'s, else why it was refused (the answer says so too).
// `decide(sender)` has the last word on a well-formed hello: "" takes it.
std::string answer_hello(PendingHandshake& h, int rank, int world, uint64_t job_id,
                         const std::function<std::string(int)>& decide, int& peer) {
  std::string reject;
  peer = -1;
  try {
    const std::string record = h.record();  // WireReader reads it in place
    const Hello hello = parse_hello(record, /*with_token=*/false);
    const uint64_t their_job = hello.job_id;
    const int sender = hello.from, target = hello.to;
    if (hello.magic != kHelloMagic) return "not a weft peer (bad handshake)";
    if (hello.version != kProtocolVersion) {
      reject = "protocol version " + std::to_string(hello.version) + " where " +
               std::to_string(kProtocolVersion) + " was expected";
    } else if (std::string token = auth_token();
               !token.empty() &&
               !base::same_secret(parse_hello(record, /*with_token=*/true).token, token)) {
      reject = "wrong or missing WEFT_AUTH_TOKEN";
    } else if (their_job != job_id) {
      reject = "it belongs to another job";
    } else if (target != rank || sender == rank || sender < 0 || sender >= world) {
      reject = "rank " + std::to_string(sender) + " dialed rank " + std::to_string(target) +
               ", which does not fit this rank " + std::to_string(rank) + " of " +
               std::to_string(world);
    } else {
      reject = decide(sender);
      if (reject.empty()) peer = sender;
    }
    send_record(h.fd.get(), encode_answer({peer >= 0, reject}), h.deadline,
                "handshake with " + h.from);
  } catch (const Error& e) {
    peer = -1;
    return e.what();
  }
  return reject;
}

}  // namespace

void TcpConnector::accept_until(int rank, int world, uint64_t job_id, base::Deadline deadline,
                                const AcceptRules& rules) {
  // Handshakes are read side by side, each within its own kStepLimit, so that
  // connections that send nothing (a port scanner, a stray client) cost no more than one
  // step limit together, not one each.
  std::vector<PendingHandshake> pending;
  // Kept across wake-ups: an accept loop that serves a whole job allocates nothing
  // while it waits (tests/p2p:allocation_test counts the process's allocations).
  std::vector<pollfd> polls;
  polls.reserve(2 + kMaxPendingHandshakes);
  pending.reserve(kMaxPendingHandshakes);
  while (true) {
    polls.assign({{listener_.get(), POLLIN, 0}});
    if (rules.stop_fd >= 0) polls.push_back({rules.stop_fd, POLLIN, 0});
    const size_t first_pending = polls.size();
    base::Deadline wake = deadline;
    for (const PendingHandshake& h : pending) {
      polls.push_back({h.fd.get(), POLLIN, 0});
      wake = wake.min(h.deadline);
    }
    // With nothing to check now and then, sleep until something happens.
    const int timeout = wake.is_never() && !rules.tick
                            ? -1
                            : wake.poll_ms(static_cast<int>(kAbortCheckInterval.count()));
    int ready = ::poll(polls.data(), polls.size(), timeout);
    if (ready < 0 && errno == EINTR) continue;
    for (size_t i = pending.size(); i-- > 0;) {
      PendingHandshake& h = pending[i];
      std::string why;
      if (polls[first_pending + i].revents != 0) {
        why = h.read_some();
      } else if (h.deadline.expired()) {
        why = "it sent no handshake within " + std::to_string(kStepLimit.count()) + " s";
      }
      if (why.empty() && h.complete()) {
        int peer = -1;
        why = answer_hello(h, rank, world, job_id, rules.decide, peer);
        if (why.empty()) {
          base::set_nonblocking(h.fd.get(), false);
          rules.take(peer, std::move(h.fd));
        } else if (peer >= 0) {
          rules.take(peer, base::Fd());  // taken, but its answer did not go out
        }
      } else if (why.empty()) {
        continue;  // more to come
      }
      if (!why.empty() && !rules.quiet(why)) {
        WEFT_LOG_LIMITED(WARN) << "rank " << rank << ": refused a connection from " << h.from
                               << ": " << why;
      }
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (rules.stop_fd >= 0 && (polls[1].revents & POLLIN)) return;
    if (rules.done && rules.done()) return;
    if (rules.tick) rules.tick();
    if (ready <= 0 && pending.empty() && deadline.expired()) {
      if (rules.expired) rules.expired();
      return;
    }
    if (!(polls[0].revents & POLLIN)) continue;
    sockaddr_storage from_addr{};
    socklen_t len = sizeof from_addr;
    base::Fd fd(::accept4(listener_.get(), reinterpret_cast<sockaddr*>(&from_addr), &len,
                          SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd) continue;
    if (pending.size() >= kMaxPendingHandshakes) {
      WEFT_LOG_LIMITED(WARN) << "rank " << rank
                             << ": refused a connection: " << kMaxPendingHandshakes
                             << " handshakes are already pending";
      continue;
    }
    pending.push_back(
        {std::move(fd),
         base::SocketAddress::from(reinterpret_cast<sockaddr*>(&from_addr), len).to_string(), "",
         deadline.min(base::Deadline::after(kStepLimit))});
  }
}

std::vector<base::Fd> TcpConnector::connect_all(int rank, const std::vector<std::string>& records,
                                                const std::vector<bool>& same_network,
                                                const std::vector<bool>& wanted, uint64_t job_id,
                                                base::Deadline deadline,
                                                const std::function<void()>& check_abort) {
  const int world = static_cast<int>(records.size());
  std::vector<base::Fd> fds(world);

  // Dial every lower rank and introduce ourselves; the answers are read at the end, so
  // that dialing never waits on a peer that is itself still dialing.
  for (int peer = 0; peer < rank; ++peer) {
    if (!wanted[peer]) continue;
    fds[peer] = dial(rank, peer, records[peer], same_network[peer], deadline);
    send_record(fds[peer].get(), hello(job_id, rank, peer), deadline,
                "handshake with rank " + std::to_string(peer));
  }

  // Accept every higher rank.
  int missing = 0;
  for (int peer = rank + 1; peer < world; ++peer) missing += wanted[peer] ? 1 : 0;
  auto next_abort_check = std::chrono::steady_clock::now() + kAbortCheckInterval;
  AcceptRules rules;
  rules.decide = [&](int sender) -> std::string {
    // A peer that connects lazily may dial before this rank is done here: it tries again.
    if (!wanted[sender]) return kNotReady;
    if (sender < rank) {
      return "rank " + std::to_string(sender) + " is a lower rank, which this rank dials";
    }
    if (fds[sender]) return "rank " + std::to_string(sender) + " is already connected";
    return "";
  };
  rules.take = [&](int sender, base::Fd fd) {
    if (!fd) return;
    fds[sender] = std::move(fd);
    --missing;
  };
  rules.quiet = [](const std::string& why) { return why == kNotReady; };
  rules.done = [&] { return missing == 0; };
  rules.tick = [&] {
    if (std::chrono::steady_clock::now() < next_abort_check) return;
    check_abort();
    next_abort_check = std::chrono::steady_clock::now() + kAbortCheckInterval;
  };
  rules.expired = [&] {
    std::string ranks;
    for (int peer = rank + 1; peer < world; ++peer) {
      if (wanted[peer] && !fds[peer]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(peer);
    }
    throw TimeoutError("rank " + std::to_string(rank) + ": rank(s) " + ranks +
                       " did not connect before the deadline (this rank listens on " +
                       describe_record(record_) + ")");
  };
  if (missing > 0) accept_until(rank, world, job_id, deadline, rules);

  for (int peer = 0; peer < rank; ++peer) {
    if (!wanted[peer]) continue;
    std::string what = "handshake with rank " + std::to_string(peer);
    std::string a = recv_record(fds[peer].get(), kMaxHandshake, deadline, what);
    const HelloAnswer answer = parse_answer(a, what);
    const std::string& reason = answer.reason;
    if (!answer.accepted) {
      throw Error(ErrorCode::kPeer, "rank " + std::to_string(peer) +
                                        " refused the connection from rank " +
                                        std::to_string(rank) + ": " + reason);
    }
  }
  return fds;
}

TcpConnector::Greeted TcpConnector::dial_and_greet(int rank, int peer, const std::string& record,
                                                   bool same_network, uint64_t job_id,
                                                   base::Deadline deadline) {
  Greeted g;
  g.fd = dial(rank, peer, record, same_network, deadline);
  const std::string what = "handshake with rank " + std::to_string(peer);
  const base::Deadline step = deadline.min(base::Deadline::after(kStepLimit));
  send_record(g.fd.get(), hello(job_id, rank, peer), step, what);
  g.answer = parse_answer(recv_record(g.fd.get(), kMaxHandshake, step, what), what);
  return g;
}

}  // namespace weft::transport::tcp

#include "base/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "weft/error.h"

namespace weft::base {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Waits until fd is ready for `events` or the deadline passes; false on timeout.
bool wait_ready(int fd, short events, Deadline deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, deadline.poll_ms());
    if (rc > 0) return true;
    if (rc == 0) {
      if (deadline.expired()) return false;
      continue;
    }
    if (errno != EINTR) throw Error(ErrorCode::kInternal, "poll: " + errno_text(errno));
  }
}

}  // namespace

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

SocketAddress SocketAddress::from(const sockaddr* addr, socklen_t len) {
  SocketAddress a;
  std::memcpy(&a.storage, addr, len);
  a.length = len;
  return a;
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
}

void SocketAddress::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

std::string SocketAddress::host() const {
  if (family() == AF_INET6) {
    // IPv4 peers of a dual-stack socket appear as ::ffff:a.b.c.d; show them as IPv4.
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      char v4[INET_ADDRSTRLEN] = {0};
      inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], v4, sizeof v4);
      return v4;
    }
  }
  char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2] = {0};
  if (getnameinfo(get(), length, buf, sizeof(buf), nullptr, 0, NI_NUMERICHOST) != 0) {
    return "?";
  }
  return buf;
}

std::string SocketAddress::to_string() const { return format_host_port(host(), port()); }

bool SocketAddress::is_loopback() const {
  if (family() == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&storage);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (family() == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) return in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

std::string format_host_port(const std::string& host, uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

uint16_t parse_port(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  long port = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || port < 0 || port > 65535) {
    throw InvalidArgument(what + ": '" + text + "' is not a port number (0-65535)");
  }
  return static_cast<uint16_t>(port);
}

std::pair<std::string, uint16_t> split_host_port(const std::string& text, const std::string& what) {
  std::string host, port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw InvalidArgument(what + ": '" + text + "' is not [ipv6-address]:port");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      throw InvalidArgument(what + ": '" + text + "' is not host:port (write IPv6 as [addr]:port)");
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) throw InvalidArgument(what + ": '" + text + "' has no host");
  return {host, parse_port(port, what)};
}

std::vector<SocketAddress> resolve(const std::string& host_in, uint16_t port) {
  std::string host = host_in;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* result = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  if (rc == EAI_NONAME || rc == EAI_ADDRFAMILY || rc == EAI_NODATA) {
    // AI_ADDRCONFIG hides loopback-only families on hosts without other addresses.
    hints.ai_flags = 0;
    rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  }
  if (rc != 0) {
    throw InvalidArgument("cannot resolve " + format_host_port(host, port) + ": " +
                          gai_strerror(rc));
  }
  std::vector<SocketAddress> out;
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    out.push_back(SocketAddress::from(ai->ai_addr, ai->ai_addrlen));
  }
  freeaddrinfo(result);
  return out;
}

Fd listen_on(const SocketAddress& address, int backlog) {
  Fd fd(::socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) throw Error(ErrorCode::kInternal, "socket: " + errno_text(errno));
  int one = 1, zero = 0;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == AF_INET6) {
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (::bind(fd.get(), address.get(), address.length) != 0) {
    int err = errno;
    if (err == EADDRINUSE) {
      throw AddressInUse("bind to " + address.to_string() + ": " + errno_text(err) +
                             " (is another job or server using this port?)",
                         address.port());
    }
    throw Error(ErrorCode::kInvalidArgument,
                "bind to " + address.to_string() + ": " + errno_text(err));
  }
  if (::listen(fd.get(), backlog) != 0) {
    throw Error(ErrorCode::kInternal,
                "listen on " + address.to_string() + ": " + errno_text(errno));
  }
  return fd;
}

Fd connect_to(const SocketAddress& address, Deadline deadline) {
  Fd fd(::socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw Error(ErrorCode::kInternal, "socket: " + errno_text(errno));
  int rc = ::connect(fd.get(), address.get(), address.length);
  if (rc != 0 && errno != EINPROGRESS) {
    throw Error(ErrorCode::kPeer, "connect to " + address.to_string() + ": " + errno_text(errno));
  }
  if (rc != 0) {
    if (!wait_ready(fd.get(), POLLOUT, deadline)) {
      throw TimeoutError("connect to " + address.to_string() + ": no answer before the deadline");
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      throw Error(ErrorCode::kPeer, "connect to " + address.to_string() + ": " + errno_text(err));
    }
  }
  set_nonblocking(fd.get(), false);
  set_nodelay(fd.get());
  return fd;
}

SocketAddress local_address(int fd) {
  SocketAddress a;
  a.length = sizeof a.storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a.storage), &a.length) != 0) {
    throw Error(ErrorCode::kInternal, "getsockname: " + errno_text(errno));
  }
  return a;
}

void set_nonblocking(int fd, bool nonblocking) {
  int flags = fcntl(fd, F_GETFL);
  flags = nonblocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, flags) != 0) {
    throw Error(ErrorCode::kInternal, "fcntl(O_NONBLOCK): " + errno_text(errno));
  }
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void close_gently(Fd& fd) {
  ::shutdown(fd.get(), SHUT_WR);
  char sink[4096];
  while (::recv(fd.get(), sink, sizeof sink, MSG_DONTWAIT) > 0) {
  }
  fd.reset();
}

void send_all(int fd, const void* data, size_t n, Deadline deadline, const std::string& what) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t rc = ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (rc > 0) {
      p += rc;
      n -= static_cast<size_t>(rc);
      continue;
    }
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLOUT, deadline)) throw TimeoutError(what + ": send timed out");
      continue;
    }
    throw Error(ErrorCode::kPeer, what + ": send failed: " + errno_text(errno));
  }
}

void recv_all(int fd, void* data, size_t n, Deadline deadline, const std::string& what) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t rc = ::recv(fd, p, n, MSG_DONTWAIT);
    if (rc > 0) {
      p += rc;
      n -= static_cast<size_t>(rc);
      continue;
    }
    if (rc == 0) throw Error(ErrorCode::kPeer, what + ": connection closed by the other side");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLIN, deadline))
        throw TimeoutError(what + ": no reply before the deadline");
      continue;
    }
    throw Error(ErrorCode::kPeer, what + ": receive failed: " + errno_text(errno));
  }
}

void send_record(int fd, const std::string& record, Deadline deadline, const std::string& what) {
  uint32_t len = static_cast<uint32_t>(record.size());
  std::string framed(reinterpret_cast<const char*>(&len), sizeof len);
  framed += record;
  send_all(fd, framed.data(), framed.size(), deadline, what);
}

std::string recv_record(int fd, uint32_t max_bytes, Deadline deadline, const std::string& what) {
  uint32_t len = 0;
  recv_all(fd, &len, sizeof len, deadline, what);
  if (len > max_bytes) {
    throw RecordTooLarge(what + ": record of " + std::to_string(len) +
                             " bytes exceeds the limit of " + std::to_string(max_bytes),
                         len);
  }
  std::string record(len, '\0');
  recv_all(fd, record.data(), len, deadline, what);
  return record;
}

std::vector<InterfaceAddress> interface_addresses() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw Error(ErrorCode::kInternal, "getifaddrs: " + errno_text(errno));
  std::vector<InterfaceAddress> out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP)) continue;
    int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    socklen_t len = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    out.push_back({i->ifa_name, SocketAddress::from(i->ifa_addr, len)});
  }
  freeifaddrs(list);
  return out;
}

namespace {

bool is_link_local(const SocketAddress& a) {
  if (a.family() != AF_INET6) return false;
  auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a.storage);
  return IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr);
}

}  // namespace

std::vector<std::string> advertised_addresses(const std::optional<std::string>& ifname,
                                              const SocketAddress& route) {
  std::vector<std::string> out;
  auto add = [&](const SocketAddress& a) {
    if (is_link_local(a)) return;  // needs a scope id that means nothing to another host
    std::string host = a.host();
    if (std::find(out.begin(), out.end(), host) == out.end()) out.push_back(host);
  };
  auto interfaces = interface_addresses();
  if (ifname) {
    std::string names;
    for (const auto& i : interfaces) {
      if (i.interface == *ifname) add(i.address);
      if (names.find(i.interface) == std::string::npos) {
        names += (names.empty() ? "" : ", ") + i.interface;
      }
    }
    if (out.empty()) {
      throw InvalidArgument("WEFT_SOCKET_IFNAME=" + *ifname +
                            ": no interface of that name is up with an address (up: " + names +
                            ")");
    }
    return out;
  }
  if (!route.is_loopback()) add(route);
  for (const auto& i : interfaces) {
    if (!i.address.is_loopback()) add(i.address);
  }
  return out;
}

SocketAddress wildcard_address(int family, uint16_t port) {
  return resolve(family == AF_INET6 ? "::" : "0.0.0.0", port).front();
}

bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  return differ == 0;
}

}  // namespace weft::base

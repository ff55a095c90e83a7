// Thin, error-checked wrappers over BSD sockets shared by the TCP transport and the TCP
// rendezvous store: addresses (IPv4 and IPv6), listening, connecting with a deadline,
// blocking transfers with a deadline, length-prefixed records, interface addresses.
// Every error names the address involved ("connect to 10.0.0.1:29500: Connection
// refused"); callers add the rank and operation.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/deadline.h"
#include "weft/error.h"

namespace weft::base {

// Owns a file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  static SocketAddress from(const sockaddr* addr, socklen_t len);
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
  uint16_t port() const;
  void set_port(uint16_t port);
  std::string host() const;       // numeric, without brackets
  std::string to_string() const;  // "10.0.0.1:29500" or "[fd00::2]:29500"
  bool is_loopback() const;
};

// "host:port", bracketing IPv6 literals.
std::string format_host_port(const std::string& host, uint16_t port);
// Parses "host:port" or "[v6]:port"; `what` names the value in errors.
std::pair<std::string, uint16_t> split_host_port(const std::string& text, const std::string& what);
// Parses a port number; `what` names it in errors.
uint16_t parse_port(const std::string& text, const std::string& what);

// Numeric or DNS host names (IPv6 literals may be bracketed). Throws naming host:port.
std::vector<SocketAddress> resolve(const std::string& host, uint16_t port);

// What listen_on throws when another socket already holds the address (EADDRINUSE), so
// that whoever chose the port can say which setting to change.
class AddressInUse : public Error {
 public:
  AddressInUse(const std::string& message, uint16_t port)
      : Error(ErrorCode::kInvalidArgument, message), port_(port) {}
  uint16_t port() const { return port_; }

 private:
  uint16_t port_;
};

// A listening socket bound to `address` (port 0: any free port), close-on-exec.
// IPv6 wildcard sockets accept IPv4 too. AddressInUse when the address is taken.
Fd listen_on(const SocketAddress& address, int backlog);
// A connected, blocking, close-on-exec socket with TCP_NODELAY set.
Fd connect_to(const SocketAddress& address, Deadline deadline);

SocketAddress local_address(int fd);
void set_nonblocking(int fd, bool nonblocking);
void set_nodelay(int fd);
// Ends a connection without losing what the peer has yet to read: no more writes, then
// the input this side did not read is read and dropped (close() with unread input
// resets the connection, and a reset can destroy data in flight), then `fd` closes.
void close_gently(Fd& fd);

// Blocking transfers that give up at `deadline` (TimeoutError) and report a closed or
// reset connection as Error(kPeer). `what` starts each message, e.g. "store 1.2.3.4:5".
void send_all(int fd, const void* data, size_t n, Deadline deadline, const std::string& what);
void recv_all(int fd, void* data, size_t n, Deadline deadline, const std::string& what);

// What recv_record throws for a length over its limit: most often the bytes are not this
// protocol's at all (another service on the port), which a caller may want to say.
class RecordTooLarge : public Error {
 public:
  RecordTooLarge(const std::string& message, uint32_t bytes)
      : Error(ErrorCode::kPeer, message), bytes_(bytes) {}
  uint32_t bytes() const { return bytes_; }

 private:
  uint32_t bytes_;
};

// A record: a 32-bit length, then that many bytes. recv_record refuses records longer
// than max_bytes (RecordTooLarge), so a stray client cannot make the reader allocate at
// will.
void send_record(int fd, const std::string& record, Deadline deadline, const std::string& what);
std::string recv_record(int fd, uint32_t max_bytes, Deadline deadline, const std::string& what);

// The hosts a process advertises to peers that dial it: the addresses of `ifname` (an
// InvalidArgument listing the interfaces that are up when it has none), else `route`
// unless it is loopback, then every other non-loopback address. Link-local IPv6
// addresses are left out (their scope id means nothing to another host); loopback only
// when `ifname` names a loopback interface, since peers elsewhere must never be told to
// use one. Empty on a host with nothing but loopback.
std::vector<std::string> advertised_addresses(const std::optional<std::string>& ifname,
                                              const SocketAddress& route);

// The address that binds every interface of `family` (AF_INET or AF_INET6) at `port`.
SocketAddress wildcard_address(int family, uint16_t port);

// Whether two shared secrets (WEFT_AUTH_TOKEN) are equal, in time that depends on their
// lengths only, so a stranger cannot guess a token byte by byte from reply times.
bool same_secret(const std::string& a, const std::string& b);

struct InterfaceAddress {
  std::string interface;
  SocketAddress address;
};
// Addresses of interfaces that are up, in the kernel's order.
std::vector<InterfaceAddress> interface_addresses();

}  // namespace weft::base

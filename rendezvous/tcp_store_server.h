// TcpStoreServer: the rendezvous store hosted by rank 0 (or by weftrun). Serves any
// number of TcpStoreClients from one background thread with epoll; a client that sends
// a malformed request is logged and disconnected without disturbing the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/socket.h"

namespace weft::rendezvous {

// What the server lets its connections hold (tcp_store_protocol.h says how each is used).
struct StoreServerLimits {
  uint64_t max_buffered;                    // WEFT_STORE_MAX_BUFFERED, default 256 MiB
  size_t max_connections;                   // WEFT_STORE_MAX_CONNECTIONS, default 65536
  std::chrono::milliseconds auth_deadline;  // 10 s
  static StoreServerLimits from_environment();
};

class TcpStoreServer {
 public:
  // Listens on `address` (port 0: any free port). Throws naming addr:port when the
  // address cannot be bound.
  explicit TcpStoreServer(const base::SocketAddress& address,
                          StoreServerLimits limits = StoreServerLimits::from_environment());
  // Stops serving and closes every client connection.
  ~TcpStoreServer();

  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  uint16_t port() const;
  std::string address() const;  // "host:port" as bound

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace weft::rendezvous

// TcpStoreServer: the rendezvous store hosted by rank 0 (or by weftrun). Serves any
// number of TcpStoreClients from one background thread with epoll; a client that sends
// a malformed request is logged and disconnected without disturbing the others.
#pragma once

#include <memory>
#include <string>

#include "base/socket.h"

namespace weft::rendezvous {

class TcpStoreServer {
 public:
  // Listens on `address` (port 0: any free port). Throws naming addr:port when the
  // address cannot be bound.
  explicit TcpStoreServer(const base::SocketAddress& address);
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

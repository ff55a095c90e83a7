// TcpStoreClient: a Store backed by a TcpStoreServer. Connecting retries until the
// deadline, since the server's process (rank 0 or the launcher) may start later than
// this one. One request is in flight at a time; calls from several threads queue.
#pragma once

#include <mutex>
#include <string>

#include "base/socket.h"
#include "rendezvous/store.h"

namespace weft::rendezvous {

class TcpStoreClient : public Store {
 public:
  // Throws naming host:port (and the last connect error) when no server answers by
  // `deadline`; InvalidArgument when the server refuses this process's WEFT_AUTH_TOKEN.
  TcpStoreClient(const std::string& host, uint16_t port, base::Deadline deadline);

  void set(const std::string& key, const std::string& value, base::Deadline deadline) override;
  std::string get(const std::string& key, base::Deadline deadline) override;
  int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) override;
  void wait(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool check(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool delete_key(const std::string& key, base::Deadline deadline) override;
  std::string describe() const override { return "rendezvous store at " + endpoint_; }

  // The address of this end of the connection: the local address that routes to the
  // store, which is what a rank advertises to its peers by default.
  base::SocketAddress local_address() const;

 private:
  // Presents WEFT_AUTH_TOKEN, when set, as the connection's first request.
  void authenticate(base::Deadline deadline);
  // Sends one request and returns the reply's body after its status byte.
  std::string call(const std::string& request, base::Deadline deadline, const std::string& op_name);

  std::string endpoint_;
  std::mutex mutex_;
  base::Fd fd_;
};

}  // namespace weft::rendezvous

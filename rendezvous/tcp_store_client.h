// TcpStoreClient: a Store backed by a TcpStoreServer. Connecting retries until the
// deadline, since the server's process (rank 0 or the launcher) may start later than
// this one. One call is in flight at a time (get_many's batch of requests is one);
// calls from several threads queue.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "base/socket.h"
#include "rendezvous/store.h"

namespace weft::rendezvous {

class TcpStoreClient : public Store {
 public:
  // Throws naming host:port (and the last connect error) when no server answers by
  // `deadline`. InvalidArgument saying the port is taken when what answers there is not
  // a weft store (its reply makes no sense, or it stays silent for kGreetingTimeout), or
  // is a store that refuses this process's WEFT_AUTH_TOKEN (most likely another job's).
  TcpStoreClient(const std::string& host, uint16_t port, base::Deadline deadline);

  // How long a store has to answer a new connection's first request; a store answers
  // at once, since that request waits for nothing.
  static constexpr std::chrono::seconds kGreetingTimeout{10};

  void set(const std::string& key, const std::string& value, base::Deadline deadline) override;
  std::string get(const std::string& key, base::Deadline deadline) override;
  // Up to kBatch requests go out back to back before their replies are read (the server
  // answers a connection's requests in order).
  std::vector<std::string> get_many(const std::vector<std::string>& keys,
                                    base::Deadline deadline) override;
  static constexpr size_t kBatch = 64;
  int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) override;
  void wait(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool check(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool delete_key(const std::string& key, base::Deadline deadline) override;
  std::string describe() const override { return "rendezvous store at " + endpoint_; }

  // The address of this end of the connection: the local address that routes to the
  // store, which is what a rank advertises to its peers by default.
  base::SocketAddress local_address() const;

 private:
  // The connection's first request: WEFT_AUTH_TOKEN when set, else a check of a key;
  // either proves a weft store answers, and the token that it is this job's.
  void greet(base::Deadline deadline);
  [[noreturn]] void throw_not_a_store(const std::string& why) const;
  // Sends one request and returns the reply's body after its status byte. The reply may
  // take kReplyGrace longer than `deadline` unless `exact`.
  std::string call(const std::string& request, base::Deadline deadline, const std::string& op_name,
                   bool exact = false);
  // The same for several requests, sent back to back; every reply is read before any
  // error is thrown, so the connection stays in step.
  std::vector<std::string> calls(const std::vector<std::string>& requests, base::Deadline deadline,
                                 const std::string& op_name, bool exact = false);

  std::string endpoint_;
  uint16_t port_;
  std::mutex mutex_;
  base::Fd fd_;
};

}  // namespace weft::rendezvous

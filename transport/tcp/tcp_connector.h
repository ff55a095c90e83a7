// TcpConnector: sets up the TCP connections of a job, one per pair of ranks.
//
// Each process listens on a port of its own (on all its addresses) and advertises where
// it can be reached: the addresses of WEFT_SOCKET_IFNAME when set, else the address
// that routes to the rendezvous store followed by its other non-loopback addresses.
// Loopback is never advertised; a peer on the same machine and in the same network
// namespace dials 127.0.0.1 instead (unless WEFT_SOCKET_IFNAME pins the interface). Rank r dials
// every lower rank and accepts every higher one, so the mesh cannot deadlock. Each new connection
// starts with a handshake carrying the job id and both ranks; connections from other jobs or with
// bad ranks are refused and logged, never adopted.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "base/socket.h"

namespace weft::transport::tcp {

class TcpConnector {
 public:
  // `route` is the local address of this process's connection to the store.
  TcpConnector(const std::optional<std::string>& ifname, const base::SocketAddress& route);

  // This process's contact record, for peers' connect_all().
  const std::string& record() const { return record_; }
  // The addresses in a record, e.g. "10.0.0.2:40311, 127.0.0.1:40311".
  static std::string describe_record(const std::string& record);

  // Connects to all peers. `records[r]` is rank r's record(); `same_network[r]` says
  // whether loopback reaches rank r. Returns one connected socket per peer (none for
  // `rank`). Throws TimeoutError naming the ranks that did not connect in time.
  // `check_abort` runs every kAbortCheckInterval while waiting for peers and may throw,
  // to stop waiting for a job that has failed elsewhere.
  std::vector<base::Fd> connect_all(int rank, const std::vector<std::string>& records,
                                    const std::vector<bool>& same_network, uint64_t job_id,
                                    base::Deadline deadline,
                                    const std::function<void()>& check_abort);

  static constexpr std::chrono::milliseconds kAbortCheckInterval{200};

 private:
  base::Fd dial(int rank, int peer, const std::string& record, bool same_network,
                base::Deadline deadline);

  base::Fd listener_;
  std::string record_;
  bool loopback_for_same_host_;
};

}  // namespace weft::transport::tcp

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
#include "transport/tcp/handshake.h"

namespace weft::transport::tcp {

class TcpConnector {
 public:
  // `route` is the local address of this process's connection to the store.
  TcpConnector(const std::optional<std::string>& ifname, const base::SocketAddress& route);

  // This process's contact record, for peers' connect_all().
  const std::string& record() const { return record_; }
  // The addresses in a record, e.g. "10.0.0.2:40311, 127.0.0.1:40311".
  static std::string describe_record(const std::string& record);

  // Connects to the peers `wanted` says (every one, unless connections to the others
  // are made on first use: LazyConnections). `records[r]` is rank r's record();
  // `same_network[r]` says whether loopback reaches rank r. Returns one connected
  // socket per wanted peer (none for `rank`). Throws TimeoutError naming the ranks that
  // did not connect in time. `check_abort` runs every kAbortCheckInterval while
  // waiting for peers and may throw, to stop waiting for a job that has failed
  // elsewhere. A dial from a peer that is not wanted is answered kNotReady.
  std::vector<base::Fd> connect_all(int rank, const std::vector<std::string>& records,
                                    const std::vector<bool>& same_network,
                                    const std::vector<bool>& wanted, uint64_t job_id,
                                    base::Deadline deadline,
                                    const std::function<void()>& check_abort);

  static constexpr std::chrono::milliseconds kAbortCheckInterval{200};

  // Refusals a dialing rank acts on rather than reports: the rank it dialed is dialing
  // it at the same moment, and the lower rank's dial wins; the rank it dialed has a
  // connection to it already, its own dial, which the dialing rank is about to take;
  // the rank it dialed is still connecting its eager peers and takes no other
  // connection yet.
  static constexpr const char* kDialingYou = "it is dialing this rank; the lower rank's wins";
  static constexpr const char* kConnectedAlready = "it is connected to this rank already";
  static constexpr const char* kNotReady = "it is still connecting to its eager peers";

  // One dial to `peer`, its hello, and the answer (LazyConnections).
  struct Greeted {
    base::Fd fd;
    HelloAnswer answer;
  };
  Greeted dial_and_greet(int rank, int peer, const std::string& record, bool same_network,
                         uint64_t job_id, base::Deadline deadline);

  // What accept_until does with each connection whose hello is well formed.
  struct AcceptRules {
    std::function<std::string(int sender)> decide;  // "" takes it, else why not
    // A taken connection, once its answer went out (an empty Fd if it could not).
    std::function<void(int sender, base::Fd fd)> take;
    std::function<bool(const std::string& why)> quiet;  // refusals not worth a warning
    std::function<bool()> done;                         // stop accepting
    std::function<void()> tick;                         // after each wake-up
    std::function<void()> expired;                      // at the deadline
    int stop_fd = -1;                                   // readable: stop accepting
  };
  // Accepts connections on this process's port until `rules.done()`, `rules.stop_fd`
  // becomes readable, or `deadline`.
  void accept_until(int rank, int world, uint64_t job_id, base::Deadline deadline,
                    const AcceptRules& rules);

 private:
  base::Fd dial(int rank, int peer, const std::string& record, bool same_network,
                base::Deadline deadline);

  base::Fd listener_;
  std::string record_;
  bool loopback_for_same_host_;
};

}  // namespace weft::transport::tcp

// LazyConnections: TCP connections to peers made on first use rather than at init
// (WEFT_CONNECT=lazy), so that a rank that talks to a few of many peers opens a few
// sockets.
//
// Either side of a pair may need the connection first, and both may dial at the same
// moment; the pair still ends up with one connection:
//   - A thread of this process accepts dials on the rank's port for the life of the job
//     and answers them without waiting for the engine, so that two ranks dialing each
//     other never wait on each other.
//   - Per peer, the state is none, dialing (this rank dials it), expecting (its own dial
//     is on the way), accepting (its dial is being answered) or ready/taken (a
//     connection exists). A dial that arrives while
//     this rank is dialing that peer is taken if it comes from the lower rank and
//     refused (kDialingYou) otherwise; the refused dialer then waits for the winner's
//     connection, which its own accept thread takes.
//   - Connections a peer dialed wait in `ready` until the engine adopts them; the bell
//     (an eventfd, in the engine's epoll set) says there are some.
//
// A peer never connected to is not watched: its crash is seen only when this rank
// next waits for it and times out (docs/ARCHITECTURE.md, "Failures"). A peer that
// leaves has no link to carry its goodbye to the ranks still dialing it, so it posts
// its departure (Departures) and a dial that fails reads it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/deadline.h"
#include "base/socket.h"
#include "transport/tcp/tcp_connector.h"

namespace weft::transport::tcp {

class LazyConnections {
 public:
  // Where ranks leave word that they left the job (runtime/ keeps it in the job's
  // store). Either function may be empty: nothing is posted or read.
  struct Departures {
    // This rank leaves, after `root_cause` failed (-1: in good order).
    std::function<void(int root_cause)> post;
    // The root cause `peer` posted when it left (-1: none); nullopt if it did not leave.
    std::function<std::optional<int>(int peer)> read;
  };

  // `records`, `same_network`: as for TcpConnector::connect_all. `connected[r]`: rank r
  // was connected at init (a shared-memory peer); dials from it are refused.
  LazyConnections(std::unique_ptr<TcpConnector> connector, int rank,
                  std::vector<std::string> records, std::vector<bool> same_network,
                  const std::vector<bool>& connected, uint64_t job_id, Departures departures);
  ~LazyConnections();  // stops accepting; connections not adopted are closed

  LazyConnections(const LazyConnections&) = delete;
  LazyConnections& operator=(const LazyConnections&) = delete;

  // The connection to `peer`: one its dial brought, or a new one this rank dials.
  // Throws Error(kPeer) naming the peer when none can be made by `deadline`.
  base::Fd connect(int peer, base::Deadline deadline);

  // Connections peers dialed that nobody has taken yet, for the engine to adopt.
  std::vector<std::pair<int, base::Fd>> take_dialed();

  // Readable while take_dialed() has something; reading it is the caller's business.
  int bell() const { return bell_.get(); }

  // This rank is leaving the job after `root_cause` failed (-1: none): posted before its
  // goodbye goes out and before it stops answering dials, so that a dial that fails
  // because it left finds the post.
  void leaving(int root_cause);
  // Whether `peer` posted that it left, and its root cause (-1: none). Asked after a
  // dial to it failed.
  std::optional<int> departed(int peer) const;

 private:
  // kExpecting: this rank's dial was refused with kDialingYou; the peer's is coming.
  enum class State : uint8_t { kNone, kDialing, kExpecting, kAccepting, kReady, kTaken };

  void serve();
  std::string decide(int sender);       // the accept thread's answer to a dial
  void taken(int sender, base::Fd fd);  // the accept thread's: its answer went out
  base::Fd wait_for_theirs(int peer, std::unique_lock<std::mutex>& lock, base::Deadline deadline);

  std::unique_ptr<TcpConnector> connector_;
  const int rank_;
  const std::vector<std::string> records_;
  const std::vector<bool> same_network_;
  const uint64_t job_id_;
  const Departures departures_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<State> state_;
  std::vector<base::Fd> ready_;  // by peer, while kReady
  base::Fd bell_;
  base::Fd stop_;
  std::thread acceptor_;
};

}  // namespace weft::transport::tcp

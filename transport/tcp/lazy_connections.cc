#include "transport/tcp/lazy_connections.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "weft/error.h"

namespace weft::transport::tcp {
namespace {

base::Fd new_eventfd() {
  base::Fd fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd) throw Error(ErrorCode::kInternal, std::string("eventfd: ") + std::strerror(errno));
  return fd;
}

void ring(int fd) {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
}

// A dial the peer refused for a reason that passes (still connecting its eager peers):
// how long to wait before the next.
constexpr auto kRedialPause = std::chrono::milliseconds(20);

}  // namespace

LazyConnections::LazyConnections(std::unique_ptr<TcpConnector> connector, int rank,
                                 std::vector<std::string> records, std::vector<bool> same_network,
                                 const std::vector<bool>& connected, uint64_t job_id,
                                 Departures departures)
    : connector_(std::move(connector)),
      rank_(rank),
      records_(std::move(records)),
      same_network_(std::move(same_network)),
      job_id_(job_id),
      departures_(std::move(departures)),
      state_(records_.size(), State::kNone),
      ready_(records_.size()),
      bell_(new_eventfd()),
      stop_(new_eventfd()) {
  for (size_t r = 0; r < connected.size(); ++r) {
    if (connected[r]) state_[r] = State::kTaken;
  }
  state_[static_cast<size_t>(rank)] = State::kTaken;  // no connection to itself
  acceptor_ = std::thread([this] { serve(); });
}

LazyConnections::~LazyConnections() {
  ring(stop_.get());
  if (acceptor_.joinable()) acceptor_.join();
}

void LazyConnections::serve() {
  TcpConnector::AcceptRules rules;
  rules.decide = [this](int sender) { return decide(sender); };
  rules.take = [this](int sender, base::Fd fd) { taken(sender, std::move(fd)); };
  rules.quiet = [](const std::string& why) {
    return why == TcpConnector::kDialingYou || why == TcpConnector::kConnectedAlready;
  };
  rules.stop_fd = stop_.get();
  const int world = static_cast<int>(records_.size());
  try {
    connector_->accept_until(rank_, world, job_id_, base::Deadline::never(), rules);
  } catch (const std::exception& e) {
    // Nothing is left to answer later dials: the dialers fail naming this rank.
    WEFT_LOG(WARN) << "rank " << rank_ << ": stopped accepting connections: " << e.what();
  }
}

std::string LazyConnections::decide(int sender) {
  std::lock_guard<std::mutex> lock(mutex_);
  State& s = state_[static_cast<size_t>(sender)];
  if (s == State::kNone || s == State::kExpecting || (s == State::kDialing && sender < rank_)) {
    s = State::kAccepting;
    return "";
  }
  if (s == State::kDialing) return TcpConnector::kDialingYou;
  // This rank dialed it, and its dial reached the peer first; the peer's accept thread
  // is taking that connection, which the dialer is to wait for.
  return TcpConnector::kConnectedAlready;
}

void LazyConnections::taken(int sender, base::Fd fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  State& s = state_[static_cast<size_t>(sender)];
  if (!fd) {
    s = State::kNone;  // the answer did not go out: the dialer tries again
  } else {
    ready_[static_cast<size_t>(sender)] = std::move(fd);
    s = State::kReady;
    ring(bell_.get());
  }
  changed_.notify_all();
}

base::Fd LazyConnections::wait_for_theirs(int peer, std::unique_lock<std::mutex>& lock,
                                          base::Deadline deadline) {
  State& s = state_[static_cast<size_t>(peer)];
  while (s == State::kAccepting || s == State::kExpecting) {
    if (deadline.expired()) break;
    changed_.wait_for(lock, std::chrono::milliseconds(deadline.poll_ms(100)));
  }
  if (s != State::kReady) return base::Fd();
  s = State::kTaken;
  return std::move(ready_[static_cast<size_t>(peer)]);
}

base::Fd LazyConnections::connect(int peer, base::Deadline deadline) {
  const size_t p = static_cast<size_t>(peer);
  std::string last;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (state_[p] == State::kAccepting || state_[p] == State::kReady ||
          state_[p] == State::kExpecting) {
        if (base::Fd fd = wait_for_theirs(peer, lock, deadline)) return fd;
      }
      if (state_[p] == State::kTaken) {
        throw Error(ErrorCode::kInternal,
                    "rank " + std::to_string(peer) + " is connected already, elsewhere");
      }
      if (state_[p] == State::kNone) state_[p] = State::kDialing;
    }
    TcpConnector::Greeted dialed;
    bool ok = false;
    try {
      dialed =
          connector_->dial_and_greet(rank_, peer, records_[p], same_network_[p], job_id_, deadline);
      ok = true;
    } catch (const Error& e) {
      last = e.what();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (ok && dialed.answer.accepted) {
      state_[p] = State::kTaken;
      changed_.notify_all();
      return std::move(dialed.fd);
    }
    if (ok && (dialed.answer.reason == TcpConnector::kDialingYou ||
               dialed.answer.reason == TcpConnector::kConnectedAlready)) {
      // The peer dialed this rank at the same moment: its dial is the pair's connection
      // (it is the lower rank, or its dial got there first), and this rank's accept
      // thread takes it.
      if (state_[p] == State::kDialing) state_[p] = State::kExpecting;
      if (base::Fd fd = wait_for_theirs(peer, lock, deadline)) return fd;
      last = "its connection to this rank did not arrive";
    } else if (ok) {
      last = "it refused the connection: " + dialed.answer.reason;
    }
    if (state_[p] == State::kDialing || state_[p] == State::kExpecting) state_[p] = State::kNone;
    const bool passing = ok && dialed.answer.reason == TcpConnector::kNotReady;
    if (!passing || deadline.expired()) {
      throw Error(ErrorCode::kPeer, "rank " + std::to_string(rank_) +
                                        " could not connect to rank " + std::to_string(peer) +
                                        ": " + last);
    }
    lock.unlock();
    std::this_thread::sleep_for(kRedialPause);
  }
}

void LazyConnections::leaving(int root_cause) {
  if (departures_.post) departures_.post(root_cause);
}

std::optional<int> LazyConnections::departed(int peer) const {
  if (!departures_.read) return std::nullopt;
  return departures_.read(peer);
}

std::vector<std::pair<int, base::Fd>> LazyConnections::take_dialed() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t rings;
  [[maybe_unused]] ssize_t n = ::read(bell_.get(), &rings, sizeof rings);  // empties it
  std::vector<std::pair<int, base::Fd>> out;
  for (size_t p = 0; p < state_.size(); ++p) {
    if (state_[p] != State::kReady) continue;
    state_[p] = State::kTaken;
    out.emplace_back(static_cast<int>(p), std::move(ready_[p]));
  }
  return out;
}

}  // namespace weft::transport::tcp

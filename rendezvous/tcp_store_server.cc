#include "rendezvous/tcp_store_server.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/env.h"
#include "base/log.h"
#include "base/wire.h"
#include "rendezvous/tcp_store_protocol.h"

namespace weft::rendezvous {
namespace {

using Clock = std::chrono::steady_clock;

using Request = StoreRequest;

struct Client {
  base::Fd fd;
  std::string peer;
  std::string in;
  std::string out;
  bool waiting = false;  // a get/wait of this client is parked until keys appear
  bool authenticated = false;
  bool reading = true;  // EPOLLIN is on (see State::update_interest)
  uint64_t serial = 0;  // tells a client from a later one given the same fd
};

// A connection that must authenticate by `deadline` (when a token is required).
struct PendingAuth {
  Clock::time_point deadline;
  int fd;
  uint64_t serial;
};

struct Waiter {
  int fd;
  Request request;
  Clock::time_point deadline;
};

}  // namespace

struct TcpStoreServer::State {
  base::Fd listener;
  base::Fd wake;  // eventfd: the destructor's stop signal
  base::Fd epoll;
  std::string bound;
  uint16_t port = 0;
  std::string token;  // WEFT_AUTH_TOKEN when this server started; empty: none required
  StoreServerLimits limits;
  uint64_t buffered = 0;  // input bytes held by all clients together
  int unauthenticated = 0;
  uint64_t next_serial = 1;
  std::deque<PendingAuth> pending_auth;  // in accept order, so deadlines are in order
  // Held open so that, out of file descriptors, one can be freed to accept a connection
  // and tell it why it is refused (see refuse_for_lack_of_descriptors).
  base::Fd spare;
  // While accept() fails for lack of descriptors the listener is out of epoll until
  // then, instead of waking the loop at once again.
  Clock::time_point listen_again = Clock::time_point::min();
  std::unordered_map<int, Client> clients;
  std::map<std::string, std::string> data;
  std::list<Waiter> waiters;
  std::thread thread;

  void serve();
  void accept_clients();
  void refuse(int fd, const std::string& why);
  void refuse_for_lack_of_descriptors(int error);
  void resume_listening();
  void expire_pending_auth();
  // The record limit of `c` now, and whether it may send more input now; EPOLLIN and
  // EPOLLOUT follow from these and its unsent replies.
  uint32_t record_limit(const Client& c) const;
  bool may_read(const Client& c) const;
  void update_interest(int fd);
  void take_input(Client& c, size_t bytes);
  void read_client(int fd);
  void process_records(int fd);
  void handle(int fd, Request request);
  // Checks a connection's first request against the token; false: refused and dropped.
  bool authenticate(int fd, const Request& request);
  bool try_answer(int fd, const Request& request);
  void reply(int fd, const std::string& body);
  void flush(int fd);
  void drop(int fd, const std::string& why);
  void wake_waiters();
  void expire_waiters();
  int next_timeout_ms() const;
};

StoreServerLimits StoreServerLimits::from_environment() {
  StoreServerLimits limits;
  limits.max_buffered = base::env::get_bytes("WEFT_STORE_MAX_BUFFERED", kDefaultMaxBuffered);
  limits.max_connections = static_cast<size_t>(
      base::env::get_int("WEFT_STORE_MAX_CONNECTIONS", kDefaultMaxConnections, 1, 1 << 24));
  limits.auth_deadline = kPreAuthDeadline;
  return limits;
}

TcpStoreServer::TcpStoreServer(const base::SocketAddress& address, StoreServerLimits limits)
    : state_(new State) {
  State& s = *state_;
  s.limits = limits;
  s.listener = base::listen_on(address, SOMAXCONN);
  base::set_nonblocking(s.listener.get(), true);
  base::SocketAddress bound = base::local_address(s.listener.get());
  s.port = bound.port();
  s.bound = bound.to_string();
  s.token = base::env::get("WEFT_AUTH_TOKEN").value_or("");
  s.spare = base::Fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  s.wake = base::Fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  s.epoll = base::Fd(epoll_create1(EPOLL_CLOEXEC));
  if (!s.wake || !s.epoll) {
    throw Error(ErrorCode::kInternal, std::string("store server: ") + std::strerror(errno));
  }
  for (int fd : {s.listener.get(), s.wake.get()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(s.epoll.get(), EPOLL_CTL_ADD, fd, &ev);
  }
  s.thread = std::thread([&s] { s.serve(); });
  WEFT_LOG(INFO) << "rendezvous store listening on " << s.bound;
}

TcpStoreServer::~TcpStoreServer() {
  uint64_t one = 1;
  (void)!write(state_->wake.get(), &one, sizeof one);
  state_->thread.join();
}

uint16_t TcpStoreServer::port() const { return state_->port; }
std::string TcpStoreServer::address() const { return state_->bound; }

void TcpStoreServer::State::serve() {
  std::vector<epoll_event> events(64);
  while (true) {
    int n =
        epoll_wait(epoll.get(), events.data(), static_cast<int>(events.size()), next_timeout_ms());
    if (n < 0 && errno != EINTR) {
      WEFT_LOG(WARN) << "store server " << bound << ": epoll_wait: " << std::strerror(errno);
      return;
    }
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == wake.get()) return;
      if (fd == listener.get()) {
        accept_clients();
        continue;
      }
      if (!clients.count(fd)) continue;
      if (events[i].events & EPOLLOUT) flush(fd);
      if (!clients.count(fd)) continue;
      if (events[i].events & EPOLLIN) {
        read_client(fd);
      } else if (events[i].events & (EPOLLHUP | EPOLLERR)) {
        drop(fd, "");  // gone while it was not being read
      }
    }
    expire_waiters();
    expire_pending_auth();
    resume_listening();
  }
}

void TcpStoreServer::State::accept_clients() {
  // A bounded number per wake-up, so that a flood of connections cannot keep the
  // loop from serving the others.
  for (int accepted = 0; accepted < 256; ++accepted) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = accept4(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        refuse_for_lack_of_descriptors(errno);
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                 errno != ECONNABORTED) {
        WEFT_LOG_LIMITED(WARN) << "store server " << bound << ": accept: " << std::strerror(errno);
      }
      return;
    }
    const std::string peer =
        base::SocketAddress::from(reinterpret_cast<sockaddr*>(&addr), len).to_string();
    if (clients.size() >= limits.max_connections) {
      refuse(fd, "store server " + bound + " has " + std::to_string(clients.size()) +
                     " connections, its limit (WEFT_STORE_MAX_CONNECTIONS)");
      WEFT_LOG_LIMITED(WARN) << "store server " << bound << ": refused a connection from " << peer
                             << ": " << clients.size()
                             << " connections open, the limit (WEFT_STORE_MAX_CONNECTIONS)";
      continue;
    }
    if (!token.empty() && unauthenticated >= kMaxUnauthenticated) {
      refuse(fd, "store server " + bound + " has " + std::to_string(unauthenticated) +
                     " connections that have not authenticated yet, its limit");
      WEFT_LOG_LIMITED(WARN) << "store server " << bound << ": refused a connection from " << peer
                             << ": " << unauthenticated
                             << " connections have not authenticated yet, the limit";
      continue;
    }
    base::set_nodelay(fd);
    Client& c = clients[fd];
    c.fd = base::Fd(fd);
    c.peer = peer;
    c.serial = next_serial++;
    if (!token.empty()) {
      ++unauthenticated;
      pending_auth.push_back({Clock::now() + limits.auth_deadline, fd, c.serial});
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev);
  }
}

// Sends `why` as the connection's one record and closes it. The client reads it as the
// reply to its first request (TcpStoreClient::call looks for it when the connection
// breaks), so it fails at once with the cause.
void TcpStoreServer::State::refuse(int fd, const std::string& why) {
  std::string body = encode_status_reply(StoreStatus::kRefused, why);
  uint32_t len = static_cast<uint32_t>(body.size());
  std::string record(reinterpret_cast<const char*>(&len), sizeof len);
  record += body;
  // The connection is new, so its send buffer is empty and takes the record whole.
  (void)!::send(fd, record.data(), record.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close(fd);
}

// accept() failed for lack of file descriptors (or memory). Busy-looping on the
// listener would burn a core and bury the log, and the joining process would only see
// its join time out: instead free the spare descriptor, accept the connection, tell it
// why, close it, and take the spare back. If even that fails, take the listener out of
// epoll for 100 ms. One warning a second at most, with the limit and the fix.
void TcpStoreServer::State::refuse_for_lack_of_descriptors(int error) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  const std::string why = "store server " + bound +
                          " cannot accept more connections: " + std::strerror(error) +
                          " (this process may open " + std::to_string(limit.rlim_cur) +
                          " files; raise the limit with `ulimit -n` before starting the job)";
  WEFT_LOG_LIMITED(WARN) << why << "; " << clients.size() << " connections open";
  bool told = false;
  if (spare) {
    spare.reset();
    int fd = accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      refuse(fd, why);
      told = true;
    }
    spare = base::Fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  }
  if (!told) {
    epoll_ctl(epoll.get(), EPOLL_CTL_DEL, listener.get(), nullptr);
    listen_again = Clock::now() + std::chrono::milliseconds(100);
  }
}

void TcpStoreServer::State::resume_listening() {
  if (listen_again == Clock::time_point::min() || Clock::now() < listen_again) return;
  listen_again = Clock::time_point::min();
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener.get();
  epoll_ctl(epoll.get(), EPOLL_CTL_ADD, listener.get(), &ev);
}

void TcpStoreServer::State::expire_pending_auth() {
  const auto now = Clock::now();
  while (!pending_auth.empty() && pending_auth.front().deadline <= now) {
    const PendingAuth p = pending_auth.front();
    pending_auth.pop_front();
    auto it = clients.find(p.fd);
    if (it != clients.end() && it->second.serial == p.serial && !it->second.authenticated) {
      drop(p.fd, "it did not authenticate within " + std::to_string(limits.auth_deadline.count()) +
                     " ms");
    }
  }
}

uint32_t TcpStoreServer::State::record_limit(const Client& c) const {
  return !token.empty() && !c.authenticated ? kMaxPreAuthRecord : kMaxStoreRecord;
}

// A client may send more while it is not waiting for a reply, has not left too many
// replies unread, and holds less than one whole record of input.
bool TcpStoreServer::State::may_read(const Client& c) const {
  return !c.waiting && c.out.size() < kMaxPendingReplies &&
         c.in.size() < sizeof(uint32_t) + record_limit(c);
}

void TcpStoreServer::State::update_interest(int fd) {
  auto it = clients.find(fd);
  if (it == clients.end()) return;
  Client& c = it->second;
  c.reading = may_read(c);
  epoll_event ev{};
  ev.events = (c.reading ? static_cast<uint32_t>(EPOLLIN) : 0u) |
              (c.out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT));
  ev.data.fd = fd;
  epoll_ctl(epoll.get(), EPOLL_CTL_MOD, fd, &ev);
}

// Removes the first `bytes` of c's input, keeping the total in step.
void TcpStoreServer::State::take_input(Client& c, size_t bytes) {
  c.in.erase(0, bytes);
  buffered -= bytes;
}

// One read of at most 64 KiB and no more than the client may hold, then its records;
// epoll reports the connection again while it has more to send. So every client's
// input stays within one record, and one busy client cannot starve the others.
void TcpStoreServer::State::read_client(int fd) {
  Client& c = clients[fd];
  if (!may_read(c)) {
    update_interest(fd);
    return;
  }
  char buf[65536];
  const size_t room = sizeof(uint32_t) + record_limit(c) - c.in.size();
  ssize_t n;
  do {
    n = ::recv(fd, buf, std::min(sizeof buf, room), 0);
  } while (n < 0 && errno == EINTR);
  if (n == 0) {
    drop(fd, "");  // an orderly close: the client is done
    return;
  }
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK) drop(fd, std::strerror(errno));
    return;
  }
  if (buffered + static_cast<uint64_t>(n) > limits.max_buffered) {
    drop(fd, "the store's connections would hold more than " +
                 std::to_string(limits.max_buffered >> 20) +
                 " MiB of unprocessed input (WEFT_STORE_MAX_BUFFERED)");
    return;
  }
  c.in.append(buf, static_cast<size_t>(n));
  buffered += static_cast<uint64_t>(n);
  process_records(fd);
  update_interest(fd);
}

void TcpStoreServer::State::process_records(int fd) {
  while (clients.count(fd) && !clients[fd].waiting) {
    Client& c = clients[fd];
    const RecordFrame frame = frame_record(c.in, record_limit(c));
    const uint32_t len = frame.length;
    if (frame.state == RecordFrame::kTooLong) {
      drop(fd, "request of " + std::to_string(len) + " bytes exceeds the limit of " +
                   std::to_string(record_limit(c)) +
                   (record_limit(c) == kMaxPreAuthRecord ? " before authentication" : ""));
      return;
    }
    if (frame.state == RecordFrame::kIncomplete) return;
    std::string record = c.in.substr(sizeof(uint32_t), len);
    take_input(c, sizeof(uint32_t) + len);
    Request request;
    try {
      request = parse_request(record);
    } catch (const Error& e) {
      reply(fd, encode_status_reply(StoreStatus::kBadRequest, e.what()));
      drop(fd, std::string("malformed request: ") + e.what());
      return;
    }
    if (request.op == StoreOp::kAuth || (!token.empty() && !c.authenticated)) {
      if (!authenticate(fd, request)) return;
      continue;
    }
    handle(fd, std::move(request));
  }
}

bool TcpStoreServer::State::authenticate(int fd, const Request& request) {
  Client& c = clients[fd];
  if (token.empty() ||
      (request.op == StoreOp::kAuth && base::same_secret(request.keys[0], token))) {
    if (!token.empty() && !c.authenticated) --unauthenticated;
    c.authenticated = true;
    reply(fd, base::WireWriter().u8(static_cast<uint8_t>(StoreStatus::kOk)).take());
    return true;
  }
  const char* why = request.op == StoreOp::kAuth ? "wrong WEFT_AUTH_TOKEN" : "no WEFT_AUTH_TOKEN";
  reply(fd, encode_status_reply(StoreStatus::kBadRequest,
                                std::string("authentication failed: ") + why));
  drop(fd, std::string("refused: ") + why);  // (drop logs it, naming the address)
  return false;
}

void TcpStoreServer::State::handle(int fd, Request request) {
  if (try_answer(fd, request)) return;
  // get/wait for keys that do not exist yet: park the client until they do.
  const Clock::time_point deadline = request_deadline(Clock::now(), request.timeout_ms);
  clients[fd].waiting = true;
  waiters.push_back({fd, std::move(request), deadline});
}

// Answers `request` if it can be answered now; false for a get/wait that must wait.
bool TcpStoreServer::State::try_answer(int fd, const Request& r) {
  base::WireWriter out;
  out.u8(static_cast<uint8_t>(StoreStatus::kOk));
  const std::string& key = r.keys.front();
  switch (r.op) {
    case StoreOp::kSet:
      data[key] = r.value;
      reply(fd, out.take());
      wake_waiters();
      return true;
    case StoreOp::kGet: {
      auto it = data.find(key);
      if (it == data.end()) return false;
      reply(fd, out.str(it->second).take());
      return true;
    }
    case StoreOp::kAdd: {
      int64_t value = 0;
      auto it = data.find(key);
      if (it != data.end()) value = std::strtoll(it->second.c_str(), nullptr, 10);
      value += r.delta;
      data[key] = std::to_string(value);
      reply(fd, out.i64(value).take());
      wake_waiters();
      return true;
    }
    case StoreOp::kWait:
      for (const auto& k : r.keys) {
        if (!data.count(k)) return false;
      }
      reply(fd, out.take());
      return true;
    case StoreOp::kCheck: {
      bool all = true;
      for (const auto& k : r.keys) all = all && data.count(k);
      reply(fd, out.u8(all ? 1 : 0).take());
      return true;
    }
    case StoreOp::kDelete: {
      bool erased = data.erase(key) > 0;
      reply(fd, out.u8(erased ? 1 : 0).take());
      return true;
    }
    case StoreOp::kAuth:
      break;  // answered on arrival, before any request reaches this table
  }
  return true;
}

void TcpStoreServer::State::wake_waiters() {
  std::vector<int> resumed;
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (try_answer(it->fd, it->request)) {
      resumed.push_back(it->fd);
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
  for (int fd : resumed) {
    if (!clients.count(fd)) continue;
    clients[fd].waiting = false;
    process_records(fd);
    update_interest(fd);
  }
}

void TcpStoreServer::State::expire_waiters() {
  auto now = Clock::now();
  std::vector<int> resumed;
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (it->deadline > now) {
      ++it;
      continue;
    }
    std::string missing;
    for (const auto& k : it->request.keys) {
      if (!data.count(k)) missing += (missing.empty() ? "" : ", ") + k;
    }
    reply(it->fd, encode_status_reply(StoreStatus::kTimedOut, missing));
    resumed.push_back(it->fd);
    it = waiters.erase(it);
  }
  for (int fd : resumed) {
    if (!clients.count(fd)) continue;
    clients[fd].waiting = false;
    process_records(fd);
    update_interest(fd);
  }
}

int TcpStoreServer::State::next_timeout_ms() const {
  auto soonest = Clock::time_point::max();
  for (const auto& w : waiters) soonest = std::min(soonest, w.deadline);
  if (!pending_auth.empty()) soonest = std::min(soonest, pending_auth.front().deadline);
  if (listen_again != Clock::time_point::min()) soonest = std::min(soonest, listen_again);
  if (soonest == Clock::time_point::max()) return -1;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(soonest - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 60000));
}

void TcpStoreServer::State::reply(int fd, const std::string& body) {
  auto it = clients.find(fd);
  if (it == clients.end()) return;
  uint32_t len = static_cast<uint32_t>(body.size());
  it->second.out.append(reinterpret_cast<const char*>(&len), sizeof len);
  it->second.out += body;
  flush(fd);
}

void TcpStoreServer::State::flush(int fd) {
  auto it = clients.find(fd);
  if (it == clients.end()) return;
  Client& c = it->second;
  while (!c.out.empty()) {
    ssize_t n = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    drop(fd, std::strerror(errno));
    return;
  }
  update_interest(fd);
}

void TcpStoreServer::State::drop(int fd, const std::string& why) {
  auto it = clients.find(fd);
  if (it == clients.end()) return;
  if (!why.empty()) {
    WEFT_LOG_LIMITED(WARN) << "store server " << bound << ": dropping client " << it->second.peer
                           << ": " << why;
  }
  if (!token.empty() && !it->second.authenticated) --unauthenticated;
  buffered -= it->second.in.size();
  waiters.remove_if([fd](const Waiter& w) { return w.fd == fd; });
  epoll_ctl(epoll.get(), EPOLL_CTL_DEL, fd, nullptr);
  clients.erase(it);
}

}  // namespace weft::rendezvous

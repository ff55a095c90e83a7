#include "rendezvous/tcp_store_server.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

struct Request {
  StoreOp op{};
  uint64_t timeout_ms = kNoTimeout;
  std::vector<std::string> keys;
  std::string value;
  int64_t delta = 0;
};

Request parse_request(const std::string& record) {
  base::WireReader in(record, "store request");
  Request r;
  uint8_t op = in.u8();
  if (op < static_cast<uint8_t>(StoreOp::kSet) || op > static_cast<uint8_t>(StoreOp::kAuth)) {
    throw Error(ErrorCode::kInvalidArgument, "unknown store op " + std::to_string(op));
  }
  r.op = static_cast<StoreOp>(op);
  r.timeout_ms = in.u64();
  uint32_t nkeys = in.u32();
  if (nkeys == 0 || nkeys > kMaxStoreKeys) {
    throw Error(ErrorCode::kInvalidArgument, "bad key count " + std::to_string(nkeys));
  }
  for (uint32_t i = 0; i < nkeys; ++i) r.keys.push_back(in.str());
  if (r.op == StoreOp::kSet) r.value = in.str();
  if (r.op == StoreOp::kAdd) r.delta = in.i64();
  if (!in.done()) throw Error(ErrorCode::kInvalidArgument, "trailing bytes in store request");
  return r;
}

struct Client {
  base::Fd fd;
  std::string peer;
  std::string in;
  std::string out;
  bool waiting = false;  // a get/wait of this client is parked until keys appear
  bool authenticated = false;
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
  std::unordered_map<int, Client> clients;
  std::map<std::string, std::string> data;
  std::list<Waiter> waiters;
  std::thread thread;

  void serve();
  void accept_clients();
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

TcpStoreServer::TcpStoreServer(const base::SocketAddress& address) : state_(new State) {
  State& s = *state_;
  s.listener = base::listen_on(address, SOMAXCONN);
  base::set_nonblocking(s.listener.get(), true);
  base::SocketAddress bound = base::local_address(s.listener.get());
  s.port = bound.port();
  s.bound = bound.to_string();
  s.token = base::env::get("WEFT_AUTH_TOKEN").value_or("");
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
      if (clients.count(fd) && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        read_client(fd);
      }
    }
    expire_waiters();
  }
}

void TcpStoreServer::State::accept_clients() {
  while (true) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = accept4(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        WEFT_LOG(WARN) << "store server " << bound << ": accept: " << std::strerror(errno);
      }
      return;
    }
    base::set_nodelay(fd);
    Client& c = clients[fd];
    c.fd = base::Fd(fd);
    c.peer = base::SocketAddress::from(reinterpret_cast<sockaddr*>(&addr), len).to_string();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev);
  }
}

void TcpStoreServer::State::read_client(int fd) {
  char buf[65536];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      clients[fd].in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      drop(fd, "");  // an orderly close: the client is done
      return;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      drop(fd, std::strerror(errno));
      return;
    }
    break;
  }
  process_records(fd);
}

void TcpStoreServer::State::process_records(int fd) {
  while (clients.count(fd) && !clients[fd].waiting) {
    Client& c = clients[fd];
    if (c.in.size() < sizeof(uint32_t)) return;
    uint32_t len;
    std::memcpy(&len, c.in.data(), sizeof len);
    if (len > kMaxStoreRecord) {
      drop(fd, "request of " + std::to_string(len) + " bytes exceeds the limit");
      return;
    }
    if (c.in.size() < sizeof(uint32_t) + len) return;
    std::string record = c.in.substr(sizeof(uint32_t), len);
    c.in.erase(0, sizeof(uint32_t) + len);
    Request request;
    try {
      request = parse_request(record);
    } catch (const Error& e) {
      reply(fd, base::WireWriter()
                    .u8(static_cast<uint8_t>(StoreStatus::kBadRequest))
                    .str(e.what())
                    .take());
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
    c.authenticated = true;
    reply(fd, base::WireWriter().u8(static_cast<uint8_t>(StoreStatus::kOk)).take());
    return true;
  }
  const char* why = request.op == StoreOp::kAuth ? "wrong WEFT_AUTH_TOKEN" : "no WEFT_AUTH_TOKEN";
  reply(fd, base::WireWriter()
                .u8(static_cast<uint8_t>(StoreStatus::kBadRequest))
                .str(std::string("authentication failed: ") + why)
                .take());
  drop(fd, std::string("refused: ") + why);  // (drop logs it, naming the address)
  return false;
}

void TcpStoreServer::State::handle(int fd, Request request) {
  if (try_answer(fd, request)) return;
  // get/wait for keys that do not exist yet: park the client until they do.
  Clock::time_point deadline = Clock::time_point::max();
  if (request.timeout_ms != kNoTimeout) {
    deadline = Clock::now() + std::chrono::milliseconds(request.timeout_ms);
  }
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
    reply(it->fd,
          base::WireWriter().u8(static_cast<uint8_t>(StoreStatus::kTimedOut)).str(missing).take());
    resumed.push_back(it->fd);
    it = waiters.erase(it);
  }
  for (int fd : resumed) {
    if (!clients.count(fd)) continue;
    clients[fd].waiting = false;
    process_records(fd);
  }
}

int TcpStoreServer::State::next_timeout_ms() const {
  auto soonest = Clock::time_point::max();
  for (const auto& w : waiters) soonest = std::min(soonest, w.deadline);
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
  epoll_event ev{};
  ev.events = EPOLLIN | (c.out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT));
  ev.data.fd = fd;
  epoll_ctl(epoll.get(), EPOLL_CTL_MOD, fd, &ev);
}

void TcpStoreServer::State::drop(int fd, const std::string& why) {
  auto it = clients.find(fd);
  if (it == clients.end()) return;
  if (!why.empty()) {
    WEFT_LOG(WARN) << "store server " << bound << ": dropping client " << it->second.peer << ": "
                   << why;
  }
  waiters.remove_if([fd](const Waiter& w) { return w.fd == fd; });
  epoll_ctl(epoll.get(), EPOLL_CTL_DEL, fd, nullptr);
  clients.erase(it);
}

}  // namespace weft::rendezvous

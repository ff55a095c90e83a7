// What hostile or broken clients can make the store server hold: records before
// authentication, input behind a parked get, connections, and file descriptors. Each
// test plays the stranger with raw sockets and checks that members are still served.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/socket.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

namespace {

using namespace std::chrono_literals;
using weft::base::Deadline;
using weft::base::Fd;
using weft::rendezvous::StoreServerLimits;
using weft::rendezvous::TcpStoreClient;
using weft::rendezvous::TcpStoreServer;

Deadline soon() { return Deadline::after(10s); }

StoreServerLimits limits() {
  StoreServerLimits l;
  l.max_buffered = 256ull << 20;
  l.max_connections = 64;
  l.auth_deadline = 10s;
  return l;
}

Fd raw_client(const TcpStoreServer& server) {
  return weft::base::connect_to(weft::base::resolve("127.0.0.1", server.port()).front(), soon());
}

// Whether the server closed `fd` within `wait` (a read sees the end or a reset).
bool closed_by_server(int fd, std::chrono::milliseconds wait) {
  timeval tv{static_cast<time_t>(wait.count() / 1000),
             static_cast<suseconds_t>(wait.count() % 1000 * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[4096];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;  // EAGAIN: still open at the end of the wait
  }
}

// Bytes a non-blocking sender got into `fd` within `wait` before it would block.
uint64_t bytes_accepted(int fd, uint64_t at_most, std::chrono::milliseconds wait) {
  std::vector<char> chunk(1 << 20, 'x');
  uint64_t sent = 0;
  const auto end = std::chrono::steady_clock::now() + wait;
  while (sent < at_most && std::chrono::steady_clock::now() < end) {
    ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<uint64_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      std::this_thread::sleep_for(5ms);
    } else {
      break;
    }
  }
  return sent;
}

class TokenScope {
 public:
  explicit TokenScope(const char* token) { setenv("WEFT_AUTH_TOKEN", token, 1); }
  ~TokenScope() { unsetenv("WEFT_AUTH_TOKEN"); }
};

TEST(StoreLimits, BeforeAuthenticationARecordMayHoldOnlyAFewKilobytes) {
  std::unique_ptr<TcpStoreServer> server;
  {
    TokenScope token("s3cret");
    server =
        std::make_unique<TcpStoreServer>(weft::base::resolve("127.0.0.1", 0).front(), limits());
  }
  Fd stranger = raw_client(*server);
  const uint32_t announced = 64u << 20;  // the store's limit for members
  ::send(stranger.get(), &announced, sizeof announced, MSG_NOSIGNAL);
  EXPECT_LT(bytes_accepted(stranger.get(), 64u << 20, 300ms), 64u << 20);
  EXPECT_TRUE(closed_by_server(stranger.get(), 2000ms));
  TokenScope token("s3cret");
  TcpStoreClient member("127.0.0.1", server->port(), soon());
  member.set("k", "v", soon());
  EXPECT_EQ(member.get("k", soon()), "v");
}

TEST(StoreLimits, AConnectionThatDoesNotAuthenticateInTimeIsClosed) {
  StoreServerLimits l = limits();
  l.auth_deadline = 200ms;
  std::unique_ptr<TcpStoreServer> server;
  {
    TokenScope token("s3cret");
    server = std::make_unique<TcpStoreServer>(weft::base::resolve("127.0.0.1", 0).front(), l);
  }
  Fd idle = raw_client(*server);
  EXPECT_TRUE(closed_by_server(idle.get(), 3000ms));
  TokenScope token("s3cret");
  TcpStoreClient member("127.0.0.1", server->port(), soon());
  std::this_thread::sleep_for(400ms);  // authenticated members may idle as long as they like
  member.set("k", "v", soon());
}

// A client that parks a get on a missing key and keeps sending gets its input held back
// by TCP, not buffered by the server.
TEST(StoreLimits, InputBehindAParkedGetIsNotBuffered) {
  TcpStoreServer server(weft::base::resolve("127.0.0.1", 0).front(), limits());
  TcpStoreClient member("127.0.0.1", server.port(), soon());
  Fd greedy = raw_client(server);
  // A well-formed get of "missing", waiting forever.
  std::string body;
  body += static_cast<char>(2);  // kGet
  const uint64_t forever = ~uint64_t{0};
  body.append(reinterpret_cast<const char*>(&forever), sizeof forever);
  const uint32_t keys = 1, key_length = 7;
  body.append(reinterpret_cast<const char*>(&keys), sizeof keys);
  body.append(reinterpret_cast<const char*>(&key_length), sizeof key_length);
  body += "missing";
  const uint32_t len = static_cast<uint32_t>(body.size());
  std::string record(reinterpret_cast<const char*>(&len), sizeof len);
  record += body;
  ASSERT_EQ(::send(greedy.get(), record.data(), record.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(record.size()));
  std::this_thread::sleep_for(50ms);
  // Everything it sends now waits in the sockets' buffers (a few MiB on loopback).
  const uint64_t sent = bytes_accepted(greedy.get(), 600u << 20, 1000ms);
  EXPECT_LT(sent, 64u << 20) << "the server read on behind a parked get";
  member.set("k", "v", soon());
  EXPECT_EQ(member.get("k", soon()), "v");
}

TEST(StoreLimits, InputOfAllConnectionsTogetherIsBounded) {
  StoreServerLimits l = limits();
  l.max_buffered = 8u << 20;
  TcpStoreServer server(weft::base::resolve("127.0.0.1", 0).front(), l);
  TcpStoreClient member("127.0.0.1", server.port(), soon());
  std::vector<Fd> strangers;
  int closed = 0;
  for (int i = 0; i < 4; ++i) {
    strangers.push_back(raw_client(server));
    const uint32_t announced = 60u << 20;  // a legal record size, never completed
    ::send(strangers.back().get(), &announced, sizeof announced, MSG_NOSIGNAL);
    bytes_accepted(strangers.back().get(), 6u << 20, 500ms);
  }
  for (Fd& s : strangers) closed += closed_by_server(s.get(), 200ms) ? 1 : 0;
  EXPECT_GE(closed, 2) << "4 x 6 MiB of input fit in a budget of 8 MiB";
  member.set("k", "v", soon());
  EXPECT_EQ(member.get("k", soon()), "v");
}

TEST(StoreLimits, ConnectionsBeyondTheLimitAreRefusedSayingWhy) {
  StoreServerLimits l = limits();
  l.max_connections = 3;
  TcpStoreServer server(weft::base::resolve("127.0.0.1", 0).front(), l);
  std::vector<Fd> held;
  for (int i = 0; i < 3; ++i) held.push_back(raw_client(server));
  std::this_thread::sleep_for(50ms);
  const auto start = std::chrono::steady_clock::now();
  try {
    TcpStoreClient late("127.0.0.1", server.port(), soon());
    late.set("k", "v", soon());
    ADD_FAILURE() << "a connection beyond the limit was served";
  } catch (const weft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("WEFT_STORE_MAX_CONNECTIONS"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "refused, not timed out";
  held.pop_back();  // a slot frees up
  std::this_thread::sleep_for(50ms);
  TcpStoreClient member("127.0.0.1", server.port(), soon());
  member.set("k", "v", soon());
}

// Out of file descriptors, the server neither spins nor leaves joiners to time out:
// the server runs in a child whose descriptor limit is low.
TEST(StoreLimits, OutOfDescriptorsTheJoinerLearnsWhyAndTheServerDoesNotSpin) {
  int to_parent[2];
  ASSERT_EQ(pipe(to_parent), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(to_parent[0]);
    {
      TcpStoreServer server(weft::base::resolve("127.0.0.1", 0).front(), limits());
      // Room for exactly 4 more descriptors: a low limit, every free number below it
      // taken, then 4 given back.
      int highest = 0;
      for (int fd = 0; fd < 4096; ++fd) {
        if (fcntl(fd, F_GETFD) != -1) highest = fd;
      }
      rlimit low{static_cast<rlim_t>(highest + 8), static_cast<rlim_t>(highest + 8)};
      setrlimit(RLIMIT_NOFILE, &low);
      std::vector<int> fillers;
      for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fillers.push_back(fd);
      for (int i = 0; i < 4 && !fillers.empty(); ++i) {
        close(fillers.back());
        fillers.pop_back();
      }
      uint16_t port = server.port();
      (void)!write(to_parent[1], &port, sizeof port);
      std::this_thread::sleep_for(60s);  // killed by the parent
    }
    _exit(0);
  }
  close(to_parent[1]);
  uint16_t port = 0;
  ASSERT_EQ(read(to_parent[0], &port, sizeof port), static_cast<ssize_t>(sizeof port));
  close(to_parent[0]);
  std::vector<std::unique_ptr<TcpStoreClient>> members;
  std::string refusal;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 12 && refusal.empty(); ++i) {
    try {
      members.push_back(std::make_unique<TcpStoreClient>("127.0.0.1", port, soon()));
      members.back()->set("k" + std::to_string(i), "v", soon());
    } catch (const weft::Error& e) {
      refusal = e.what();
    }
  }
  EXPECT_NE(refusal.find("ulimit -n"), std::string::npos) << refusal;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "refused, not timed out";
  // The child's CPU time over the next half second: a server busy-looping on accept()
  // with connections queued would use nearly all of it.
  std::vector<Fd> queued;
  for (int i = 0; i < 4; ++i) {
    try {
      queued.push_back(weft::base::connect_to(weft::base::resolve("127.0.0.1", port).front(),
                                              Deadline::after(1s)));
    } catch (const weft::Error&) {
    }
  }
  auto cpu_ticks = [child] {
    std::string path = "/proc/" + std::to_string(child) + "/stat";
    FILE* f = fopen(path.c_str(), "r");
    if (f == nullptr) return 0L;
    char buf[1024] = {};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    std::string stat(buf, n);
    // Fields 14 and 15 (utime, stime) follow the ")" that ends the command name.
    const char* p = std::strrchr(stat.c_str(), ')');
    long utime = 0, stime = 0;
    if (p != nullptr)
      std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime);
    return utime + stime;
  };
  const long before = cpu_ticks();
  std::this_thread::sleep_for(500ms);
  const long used = cpu_ticks() - before;
  EXPECT_LT(used, sysconf(_SC_CLK_TCK) / 5) << "the server used " << used << " ticks in 0.5 s";
  members.clear();
  kill(child, SIGKILL);
  int status;
  waitpid(child, &status, 0);
}

}  // namespace

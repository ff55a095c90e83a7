// TcpStoreServer and TcpStoreClient in one process: every operation, waiting and
// timeouts, concurrency, and misbehaving or vanished peers.
#include "rendezvous/store.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>
#include <vector>

#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

namespace {

using namespace std::chrono_literals;
using weft::base::Deadline;
using weft::rendezvous::PrefixStore;
using weft::rendezvous::TcpStoreClient;
using weft::rendezvous::TcpStoreServer;

weft::base::Deadline soon() { return weft::base::Deadline::after(10s); }

class StoreTest : public ::testing::Test {
 protected:
  TcpStoreServer server{weft::base::resolve("127.0.0.1", 0).front()};
  std::unique_ptr<TcpStoreClient> client() {
    return std::make_unique<TcpStoreClient>("127.0.0.1", server.port(), soon());
  }
};

TEST_F(StoreTest, SetGetAddCheckDelete) {
  auto c = client();
  c->set("a", std::string("x\0y", 3), soon());
  EXPECT_EQ(c->get("a", soon()), std::string("x\0y", 3));
  EXPECT_EQ(c->add("n", 5, soon()), 5);
  EXPECT_EQ(c->add("n", -2, soon()), 3);
  EXPECT_EQ(c->get("n", soon()), "3");
  EXPECT_TRUE(c->check({"a", "n"}, soon()));
  EXPECT_FALSE(c->check({"a", "missing"}, soon()));
  EXPECT_TRUE(c->delete_key("a", soon()));
  EXPECT_FALSE(c->delete_key("a", soon()));
  EXPECT_FALSE(c->check({"a"}, soon()));
}

TEST_F(StoreTest, GetAndWaitBlockUntilAnotherClientSets) {
  auto waiter = client();
  auto setter = client();
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    setter->set("k1", "v1", soon());
    setter->set("k2", "v2", soon());
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(waiter->get("k1", soon()), "v1");
  waiter->wait({"k1", "k2"}, soon());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 90ms);
  later.join();
}

TEST_F(StoreTest, TimeoutNamesTheMissingKeysAndLeavesTheConnectionUsable) {
  auto c = client();
  c->set("present", "1", soon());
  try {
    c->wait({"present", "absent"}, weft::base::Deadline::after(200ms));
    ADD_FAILURE() << "wait returned for a key nobody set";
  } catch (const weft::TimeoutError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("timed out waiting for key(s): absent"), std::string::npos) << what;
    EXPECT_EQ(what.find("key(s): present"), std::string::npos) << what;
  }
  EXPECT_THROW(c->get("absent", weft::base::Deadline::after(100ms)), weft::TimeoutError);
  EXPECT_EQ(c->get("present", soon()), "1");  // replies are still in step
}

// get_many sends its gets in batches of TcpStoreClient::kBatch without waiting for each
// reply: the values come back in order, a get in the middle of a batch waits for its key
// as get() does, and one that times out leaves the connection in step.
TEST_F(StoreTest, GetManyReturnsEveryValueInOrderAndWaitsForLateKeys) {
  auto reader = client();
  auto setter = client();
  const int n = static_cast<int>(TcpStoreClient::kBatch) * 2 + 5;
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    keys.push_back("k" + std::to_string(i));
    if (i != 70) setter->set(keys.back(), "v" + std::to_string(i), soon());
  }
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    setter->set("k70", "late", soon());
  });
  std::vector<std::string> values = reader->get_many(keys, soon());
  later.join();
  ASSERT_EQ(values.size(), keys.size());
  for (int i = 0; i < n; ++i) EXPECT_EQ(values[i], i == 70 ? "late" : "v" + std::to_string(i));

  // Through a prefix, the same keys with the prefix in front.
  setter->set("job/x", "X", soon());
  PrefixStore prefixed("job", *reader);
  EXPECT_EQ(prefixed.get_many({"x"}, soon()), std::vector<std::string>{"X"});
}

TEST_F(StoreTest, GetManyTimingOutMidBatchLeavesTheConnectionInStep) {
  auto c = client();
  c->set("a", "1", soon());
  c->set("c", "3", soon());
  try {
    c->get_many({"a", "b", "c"}, weft::base::Deadline::after(200ms));
    ADD_FAILURE() << "get_many returned with a key nobody set";
  } catch (const weft::TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("key(s): b"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c->get_many({"c", "a"}, soon()), (std::vector<std::string>{"3", "1"}));
}

TEST_F(StoreTest, ConcurrentAddsFromManyClientsAllCount) {
  constexpr int kClients = 8, kAdds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&] {
      auto c = client();
      for (int i = 0; i < kAdds; ++i) c->add("counter", 1, soon());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(client()->add("counter", 0, soon()), kClients * kAdds);
}

TEST_F(StoreTest, GarbageFromAStrayClientIsDroppedWithoutHarm) {
  auto good = client();
  good->set("k", "v", soon());
  weft::base::Fd stray =
      weft::base::connect_to(weft::base::resolve("127.0.0.1", server.port()).front(), soon());
  const char junk[] = "\x05\x00\x00\x00GET / HTTP/1.0\r\n\r\n";
  ::send(stray.get(), junk, sizeof junk, MSG_NOSIGNAL);
  // A huge length prefix must not make the server allocate it.
  weft::base::Fd greedy =
      weft::base::connect_to(weft::base::resolve("127.0.0.1", server.port()).front(), soon());
  uint32_t huge = 0xFFFFFFF0u;
  ::send(greedy.get(), &huge, sizeof huge, MSG_NOSIGNAL);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(good->get("k", soon()), "v");
  char byte;
  EXPECT_LE(::recv(greedy.get(), &byte, 1, 0), 0) << "the server kept a client that sent garbage";
}

TEST_F(StoreTest, PrefixStoresDoNotSeeEachOther) {
  auto c = client();
  PrefixStore a("job-a", *c), b("job-b", *c);
  a.set("rank", "A", soon());
  b.set("rank", "B", soon());
  EXPECT_EQ(a.get("rank", soon()), "A");
  EXPECT_EQ(b.get("rank", soon()), "B");
  EXPECT_EQ(c->get("job-a/rank", soon()), "A");
  EXPECT_FALSE(a.check({"job-b/rank"}, soon()));
}

TEST(StoreClient, NoServerTimesOutNamingTheAddress) {
  uint16_t port;
  {
    weft::base::Fd probe = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 1);
    port = weft::base::local_address(probe.get()).port();
  }
  try {
    TcpStoreClient c("127.0.0.1", port, weft::base::Deadline::after(300ms));
    ADD_FAILURE() << "connected to a port where nothing listens";
  } catch (const weft::TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)), std::string::npos)
        << e.what();
  }
}

TEST(StoreClient, ServerThatGoesAwayIsReportedAsLost) {
  auto server = std::make_unique<TcpStoreServer>(weft::base::resolve("127.0.0.1", 0).front());
  TcpStoreClient c("127.0.0.1", server->port(), soon());
  c.set("k", "v", soon());
  server.reset();
  EXPECT_THROW(c.get("k", soon()), weft::rendezvous::StoreLost);
}

// A service of some other kind on the store's port: one that answers with bytes of its
// own, and one that accepts connections and says nothing.
TEST(StoreClient, AServiceThatIsNotAStoreIsNamedAsSuch) {
  weft::base::Fd listener = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 4);
  const uint16_t port = weft::base::local_address(listener.get()).port();
  std::thread http([&] {
    weft::base::Fd peer(accept(listener.get(), nullptr, nullptr));
    char request[256];
    (void)!recv(peer.get(), request, sizeof request, 0);
    const std::string reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    (void)!send(peer.get(), reply.data(), reply.size(), MSG_NOSIGNAL);
  });
  try {
    TcpStoreClient c("127.0.0.1", port, soon());
    ADD_FAILURE() << "took an HTTP server for a store";
  } catch (const weft::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("127.0.0.1:" + std::to_string(port) + " is not a weft rendezvous store"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("port " + std::to_string(port) + " seems to be used by something else"),
              std::string::npos)
        << what;
  }
  http.join();
}

TEST(StoreClient, ASilentServiceIsNamedAsSuchBeforeTheDeadline) {
  // Listening, never accepting: the kernel completes the connection, nobody answers.
  weft::base::Fd listener = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 4);
  const uint16_t port = weft::base::local_address(listener.get()).port();
  try {
    TcpStoreClient c("127.0.0.1", port, weft::base::Deadline::after(120s));
    ADD_FAILURE() << "took a silent service for a store";
  } catch (const weft::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("did not answer within"), std::string::npos) << what;
    EXPECT_NE(what.find("port " + std::to_string(port) + " seems to be used by something else"),
              std::string::npos)
        << what;
  }
}

TEST(StoreServer, BindErrorNamesTheAddress) {
  TcpStoreServer first(weft::base::resolve("127.0.0.1", 0).front());
  auto address = weft::base::resolve("127.0.0.1", first.port()).front();
  try {
    TcpStoreServer second(address);
    ADD_FAILURE() << "two servers bound one port";
  } catch (const weft::base::AddressInUse& e) {
    EXPECT_NE(std::string(e.what()).find(address.to_string()), std::string::npos) << e.what();
    EXPECT_EQ(e.port(), first.port());
  }
}

// WEFT_AUTH_TOKEN is read by the server when it starts and by each client when it
// connects: set it around each construction.
class TokenScope {
 public:
  explicit TokenScope(const char* token) {
    if (token) {
      setenv("WEFT_AUTH_TOKEN", token, 1);
    } else {
      unsetenv("WEFT_AUTH_TOKEN");
    }
  }
  ~TokenScope() { unsetenv("WEFT_AUTH_TOKEN"); }
};

TEST(StoreAuthentication, WrongOrMissingTokensAreRefusedWhileTheRightOneWorks) {
  std::unique_ptr<TcpStoreServer> server;
  {
    TokenScope token("s3cret");
    server = std::make_unique<TcpStoreServer>(weft::base::resolve("127.0.0.1", 0).front());
  }
  std::unique_ptr<TcpStoreClient> member;
  {
    TokenScope token("s3cret");
    member = std::make_unique<TcpStoreClient>("127.0.0.1", server->port(), soon());
  }
  member->set("k", "v", soon());
  {
    TokenScope token("guess");
    try {
      TcpStoreClient stranger("127.0.0.1", server->port(), soon());
      ADD_FAILURE() << "a wrong token was accepted";
    } catch (const weft::InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("refused this process's WEFT_AUTH_TOKEN"), std::string::npos) << what;
      // Most often the store is another job's, which holds the port.
      EXPECT_NE(what.find("port " + std::to_string(server->port()) +
                          " is most likely in use by another job"),
                std::string::npos)
          << what;
    }
  }
  {
    TokenScope token(nullptr);  // no token: the first request is refused
    try {
      TcpStoreClient stranger("127.0.0.1", server->port(), soon());
      ADD_FAILURE() << "a client without a token was accepted";
    } catch (const weft::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("which has no WEFT_AUTH_TOKEN"), std::string::npos)
          << e.what();
    }
  }
  // The member that had the token never noticed.
  EXPECT_EQ(member->get("k", soon()), "v");
  EXPECT_EQ(member->add("n", 2, soon()), 2);
}

TEST(StoreAuthentication, AServerWithoutATokenAcceptsClientsThatHaveOne) {
  TcpStoreServer server(weft::base::resolve("127.0.0.1", 0).front());
  TokenScope token("s3cret");
  TcpStoreClient client("127.0.0.1", server.port(), soon());
  client.set("k", "v", soon());
  EXPECT_EQ(client.get("k", soon()), "v");
}

}  // namespace

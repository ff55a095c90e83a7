// PmiClient against a fake PMI-1 process manager on the other end of a socketpair (the
// exact request lines, replies in pieces, every error path), and, when MPICH's Hydra is
// installed, against the real one: mpiexec.hydra -n 3 pmi_probe.
#include "rendezvous/pmi_client.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/launched_job.h"
#include "weft/error.h"

namespace {

using weft::ErrorCode;
using weft::rendezvous::PmiClient;

// What the fake process manager does besides answering correctly.
struct Behaviour {
  std::string init_reply;   // replaces the response_to_init line when set
  std::string maxes_reply;  // replaces the maxes line when set
  bool close_on_barrier = false;
  std::string before_close;  // written (without a newline) just before that close
  bool one_byte_at_a_time = false;
};

// A PMI-1 process manager for one client, serving it in a thread: a key-value space
// named kvs_fake_0 with keylen_max=64 and vallen_max=1024, as Hydra has. It answers
// "get" of key "boom" with rc=1, "put" of key "refused" with rc=1 and a msg with spaces
// in it, and "get" of key "confused" with a reply of the wrong cmd.
class FakePmiServer {
 public:
  explicit FakePmiServer(Behaviour behaviour = {}) : behaviour_(std::move(behaviour)) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      ADD_FAILURE() << "socketpair: " << std::strerror(errno);
      return;
    }
    client_fd_ = fds[0];
    server_fd_ = fds[1];
    thread_ = std::thread([this] { serve(); });
  }
  ~FakePmiServer() { join(); }

  // The client end, for the PmiClient to own.
  int client_fd() const { return client_fd_; }

  // Waits for the client to finish (finalize, close, or a closed server end) and
  // returns every request line it sent.
  std::vector<std::string> join() {
    if (thread_.joinable()) thread_.join();
    if (server_fd_ >= 0) close(server_fd_);
    server_fd_ = -1;
    return requests_;
  }

 private:
  static std::map<std::string, std::string> fields(const std::string& line) {
    std::map<std::string, std::string> out;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      size_t eq = word.find('=');
      out[word.substr(0, eq)] = eq == std::string::npos ? "" : word.substr(eq + 1);
    }
    return out;
  }

  void write_all(const std::string& text) {
    size_t step = behaviour_.one_byte_at_a_time ? 1 : text.size();
    for (size_t at = 0; at < text.size(); at += step) {
      if (send(server_fd_, text.data() + at, std::min(step, text.size() - at), MSG_NOSIGNAL) < 0) {
        return;  // the client has gone; its test says what it expected
      }
      if (behaviour_.one_byte_at_a_time) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void reply(const std::string& line) { write_all(line + "\n"); }

  void serve() {
    std::string buffer;
    char chunk[256];
    while (true) {
      size_t newline = buffer.find('\n');
      if (newline == std::string::npos) {
        ssize_t n = read(server_fd_, chunk, sizeof chunk);
        if (n <= 0) return;  // the client closed its end
        buffer.append(chunk, static_cast<size_t>(n));
        continue;
      }
      std::string line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      requests_.push_back(line);
      auto f = fields(line);
      const std::string& cmd = f["cmd"];
      if (cmd == "init") {
        reply(!behaviour_.init_reply.empty()
                  ? behaviour_.init_reply
                  : "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
      } else if (cmd == "get_maxes") {
        reply(!behaviour_.maxes_reply.empty()
                  ? behaviour_.maxes_reply
                  : "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024");
      } else if (cmd == "get_my_kvsname") {
        reply("cmd=my_kvsname kvsname=kvs_fake_0");
      } else if (cmd == "put") {
        if (f["kvsname"] != "kvs_fake_0") {
          reply("cmd=put_result rc=-1 msg=unknown_kvsname");
        } else if (f["key"] == "refused") {
          reply("cmd=put_result rc=1 msg=the key space is full");
        } else {
          kvs_[f["key"]] = f["value"];
          reply("cmd=put_result rc=0 msg=success");
        }
      } else if (cmd == "get") {
        const std::string& key = f["key"];
        if (key == "boom") {
          reply("cmd=get_result rc=1 msg=fake_failure_for_boom value=unknown");
        } else if (key == "confused") {
          reply("cmd=put_result rc=0 msg=success");
        } else if (f["kvsname"] == "kvs_fake_0" && kvs_.count(key) != 0) {
          reply("cmd=get_result rc=0 msg=success value=" + kvs_[key]);
        } else {
          reply("cmd=get_result rc=-1 msg=key_" + key + "_not_found value=unknown");
        }
      } else if (cmd == "barrier_in") {
        if (behaviour_.close_on_barrier) {
          write_all(behaviour_.before_close);
          close(server_fd_);
          server_fd_ = -1;
          return;
        }
        reply("cmd=barrier_out");
      } else if (cmd == "finalize") {
        reply("cmd=finalize_ack");
        return;
      } else {
        reply("cmd=error rc=-1 msg=unknown_command");
      }
    }
  }

  Behaviour behaviour_;
  int client_fd_ = -1;
  int server_fd_ = -1;
  std::thread thread_;
  std::vector<std::string> requests_;
  std::map<std::string, std::string> kvs_;
};

// Runs `body` and returns the weft::Error it throws; fails the test when it throws
// none or a different type.
template <typename Body>
weft::Error error_of(Body body) {
  try {
    body();
  } catch (const weft::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no weft::Error was thrown";
  return weft::Error(ErrorCode::kInternal, "(none)");
}

TEST(PmiClient, AWholeConversationSendsTheExactWireLines) {
  FakePmiServer server;
  {
    PmiClient pmi(server.client_fd(), 0, 1);
    pmi.init();
    EXPECT_EQ(pmi.kvsname(), "kvs_fake_0");
    EXPECT_EQ(pmi.max_key_length(), 63u);
    EXPECT_EQ(pmi.max_value_length(), 1023u);
    EXPECT_EQ(pmi.rank(), 0);
    EXPECT_EQ(pmi.size(), 1);
    pmi.put("k0", "v0");
    pmi.put("empty", "");
    pmi.put("long", std::string(1023, 'x'));
    pmi.barrier();
    EXPECT_EQ(pmi.get("k0"), "v0");
    EXPECT_EQ(pmi.get("empty"), "");
    EXPECT_EQ(pmi.get("long"), std::string(1023, 'x'));
    pmi.finalize();
    // After finalize() the descriptor is closed and every call refused.
    weft::Error e = error_of([&] { pmi.barrier(); });
    EXPECT_EQ(e.code(), ErrorCode::kState);
    EXPECT_STREQ(e.what(), "PMI barrier: called after finalize()");
  }
  std::vector<std::string> expected = {
      "cmd=init pmi_version=1 pmi_subversion=1",
      "cmd=get_maxes",
      "cmd=get_my_kvsname",
      "cmd=put kvsname=kvs_fake_0 key=k0 value=v0",
      "cmd=put kvsname=kvs_fake_0 key=empty value=",
      "cmd=put kvsname=kvs_fake_0 key=long value=" + std::string(1023, 'x'),
      "cmd=barrier_in",
      "cmd=get kvsname=kvs_fake_0 key=k0",
      "cmd=get kvsname=kvs_fake_0 key=empty",
      "cmd=get kvsname=kvs_fake_0 key=long",
      "cmd=finalize",
  };
  EXPECT_EQ(server.join(), expected);
}

TEST(PmiClient, RepliesArrivingInPiecesOnANonBlockingFd) {
  Behaviour b;
  b.one_byte_at_a_time = true;
  FakePmiServer server(b);
  fcntl(server.client_fd(), F_SETFL, fcntl(server.client_fd(), F_GETFL) | O_NONBLOCK);
  PmiClient pmi(server.client_fd());
  pmi.init();
  pmi.put("a", "1");
  pmi.barrier();
  EXPECT_EQ(pmi.get("a"), "1");
  pmi.finalize();
  EXPECT_EQ(server.join().size(), 7u);
}

TEST(PmiClient, RefusalsCarryTheProcessManagersMessage) {
  FakePmiServer server;
  PmiClient pmi(server.client_fd());
  pmi.init();
  pmi.put("k0", "v0");
  pmi.barrier();

  weft::Error missing = error_of([&] { pmi.get("missing"); });
  EXPECT_EQ(missing.code(), ErrorCode::kPeer);
  EXPECT_STREQ(missing.what(),
               "PMI get: key 'missing': the process manager answered rc=-1: key_missing_not_found");

  weft::Error boom = error_of([&] { pmi.get("boom"); });
  EXPECT_EQ(boom.code(), ErrorCode::kPeer);
  EXPECT_STREQ(boom.what(),
               "PMI get: key 'boom': the process manager answered rc=1: fake_failure_for_boom");

  weft::Error refused = error_of([&] { pmi.put("refused", "x"); });
  EXPECT_EQ(refused.code(), ErrorCode::kPeer);
  EXPECT_STREQ(refused.what(),
               "PMI put: key 'refused': the process manager answered rc=1: the key space is full");

  // A refusal leaves the conversation in step: the next call works.
  EXPECT_EQ(pmi.get("k0"), "v0");
  pmi.finalize();
  server.join();
}

TEST(PmiClient, AnUnexpectedReplyBreaksTheConnection) {
  FakePmiServer server;
  PmiClient pmi(server.client_fd());
  pmi.init();
  weft::Error e = error_of([&] { pmi.get("confused"); });
  EXPECT_EQ(e.code(), ErrorCode::kPeer);
  EXPECT_STREQ(e.what(),
               "PMI get: key 'confused': the process manager answered 'cmd=put_result rc=0 "
               "msg=success' where cmd=get_result was expected");
  // Out of step: the client closed PMI_FD, and says so.
  weft::Error later = error_of([&] { pmi.barrier(); });
  EXPECT_EQ(later.code(), ErrorCode::kState);
  EXPECT_NE(std::string(later.what()).find("PMI barrier: PMI_FD (fd "), std::string::npos)
      << later.what();
  server.join();  // ends as the client closed its end
}

TEST(PmiClient, InitRefusedOrGarbled) {
  {
    Behaviour b;
    b.init_reply = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 msg=version_mismatch";
    FakePmiServer server(b);
    PmiClient pmi(server.client_fd());
    weft::Error e = error_of([&] { pmi.init(); });
    EXPECT_EQ(e.code(), ErrorCode::kPeer);
    EXPECT_STREQ(e.what(), "PMI init: the process manager answered rc=-1: version_mismatch");
  }
  {
    Behaviour b;
    b.init_reply = "hello there";
    FakePmiServer server(b);
    PmiClient pmi(server.client_fd());
    weft::Error e = error_of([&] { pmi.init(); });
    EXPECT_EQ(e.code(), ErrorCode::kPeer);
    EXPECT_STREQ(e.what(),
                 "PMI init: the process manager answered 'hello there' where "
                 "cmd=response_to_init was expected");
  }
  {
    Behaviour b;
    b.maxes_reply = "cmd=maxes kvsname_max=256 keylen_max=64";
    FakePmiServer server(b);
    PmiClient pmi(server.client_fd());
    weft::Error e = error_of([&] { pmi.init(); });
    EXPECT_EQ(e.code(), ErrorCode::kPeer);
    EXPECT_STREQ(e.what(),
                 "PMI get_maxes: the process manager's reply 'cmd=maxes kvsname_max=256 "
                 "keylen_max=64' has no valid vallen_max");
  }
}

TEST(PmiClient, TheProcessManagerClosingPmiFd) {
  for (const std::string& partial : {std::string(), std::string("cmd=barr")}) {
    Behaviour b;
    b.close_on_barrier = true;
    b.before_close = partial;
    FakePmiServer server(b);
    int fd = server.client_fd();
    PmiClient pmi(fd);
    pmi.init();
    pmi.put("k", "v");
    weft::Error e = error_of([&] { pmi.barrier(); });
    EXPECT_EQ(e.code(), ErrorCode::kPeer);
    std::string expected = "PMI barrier: the process manager closed PMI_FD (fd " +
                           std::to_string(fd) + ") before replying" +
                           (partial.empty() ? "" : " after the partial reply 'cmd=barr'") +
                           "; it has probably ended the job";
    EXPECT_EQ(e.what(), expected);
    EXPECT_EQ(error_of([&] { pmi.get("k"); }).code(), ErrorCode::kState);
    server.join();
  }
}

TEST(PmiClient, KeysAndValuesTheWireCannotCarry) {
  FakePmiServer server;
  PmiClient pmi(server.client_fd());
  pmi.init();
  auto refused = [&](const std::string& key, const std::string& value) {
    try {
      pmi.put(key, value);
    } catch (const weft::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refused("a b", "x"),
            "PMI put: key 'a b' holds character 32 at offset 1; PMI allows no '=', space or "
            "control characters (hex-encode it)");
  EXPECT_EQ(refused("a=b", "x"),
            "PMI put: key 'a=b' holds character 61 at offset 1; PMI allows no '=', space or "
            "control characters (hex-encode it)");
  EXPECT_EQ(refused("k", "line\nbreak"),
            "PMI put (key 'k'): value 'line\nbreak' holds character 10 at offset 4; PMI allows "
            "no '=', space or control characters (hex-encode it)");
  EXPECT_EQ(refused("k", "x=1"),
            "PMI put (key 'k'): value 'x=1' holds character 61 at offset 1; PMI allows no '=', "
            "space or control characters (hex-encode it)");
  EXPECT_NE(refused("k", "tab\there").find("holds character 9 at offset 3"), std::string::npos);
  EXPECT_EQ(refused("", "x"), "PMI put: the key is empty");
  EXPECT_EQ(refused(std::string(64, 'k'), "x"),
            "PMI put: key '" + std::string(64, 'k') +
                "' has 64 bytes; the process manager takes 63 at most");
  EXPECT_EQ(refused("k", std::string(1024, 'v')).substr(0, 26), "PMI put (key 'k'): value '");
  EXPECT_NE(refused("k", std::string(1024, 'v'))
                .find("has 1024 bytes; the process manager "
                      "takes 1023 at most"),
            std::string::npos);
  EXPECT_EQ(refused(std::string(63, 'k'), std::string(1023, 'v')), "(accepted)");
  try {
    pmi.get("a b");
    ADD_FAILURE() << "get accepted a key with a space";
  } catch (const weft::InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("PMI get: key 'a b' holds character 32", 0), 0u);
  }
  pmi.finalize();
  // None of the refused ones reached the wire: init, maxes, kvsname, one put, finalize.
  std::vector<std::string> requests = server.join();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[3].substr(0, 38), "cmd=put kvsname=kvs_fake_0 key=kkkkkkk");
}

TEST(PmiClient, CallsOutOfOrder) {
  FakePmiServer server;
  PmiClient pmi(server.client_fd());
  weft::Error before = error_of([&] { pmi.put("k", "v"); });
  EXPECT_EQ(before.code(), ErrorCode::kState);
  EXPECT_STREQ(before.what(), "PMI put: called before init()");
  EXPECT_EQ(error_of([&] { pmi.barrier(); }).code(), ErrorCode::kState);
  EXPECT_EQ(error_of([&] { pmi.get("k"); }).code(), ErrorCode::kState);
  // A bare descriptor carries no rank: that comes from PMI_RANK.
  weft::Error rank = error_of([&] { (void)pmi.rank(); });
  EXPECT_EQ(rank.code(), ErrorCode::kState);
  EXPECT_EQ(std::string(rank.what()).rfind("PMI rank: unknown", 0), 0u);
  EXPECT_EQ(error_of([&] { (void)pmi.size(); }).code(), ErrorCode::kState);
  pmi.init();
  EXPECT_EQ(error_of([&] { pmi.init(); }).code(), ErrorCode::kState);
  pmi.finalize();
  EXPECT_EQ(server.join().size(), 4u);
}

TEST(PmiClient, BadRankAndSizeInTheConstructor) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  EXPECT_THROW(PmiClient(fds[0], 3, 3), weft::InvalidArgument);
  EXPECT_THROW(PmiClient(fds[0], -1, 3), weft::InvalidArgument);
  // The refused descriptor stays the caller's, still open.
  EXPECT_GE(fcntl(fds[0], F_GETFD), 0);
  close(fds[0]);
  close(fds[1]);
}

// Sets (or, for nullptr, unsets) environment variables for one scope.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      if (value) {
        setenv(name, value, 1);
      } else {
        unsetenv(name);
      }
    }
  }
  ~ScopedEnvironment() {
    for (auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(PmiClient, FromTheEnvironment) {
  {
    ScopedEnvironment env({{"PMI_FD", nullptr}, {"PMI_RANK", "0"}, {"PMI_SIZE", "1"}});
    EXPECT_FALSE(PmiClient::from_environment().has_value());
  }
  {
    FakePmiServer server;
    int fd = server.client_fd();
    fcntl(fd, F_SETFD, 0);  // as inherited from a launcher: not close-on-exec
    std::string fd_text = std::to_string(fd);
    ScopedEnvironment env({{"PMI_FD", fd_text.c_str()}, {"PMI_RANK", "1"}, {"PMI_SIZE", "3"}});
    std::optional<PmiClient> pmi = PmiClient::from_environment();
    ASSERT_TRUE(pmi.has_value());
    EXPECT_EQ(pmi->rank(), 1);
    EXPECT_EQ(pmi->size(), 3);
    EXPECT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    pmi->init();
    pmi->finalize();
    EXPECT_EQ(server.join().size(), 4u);
  }
  auto message = [](const char* fd, const char* rank, const char* size) {
    ScopedEnvironment env({{"PMI_FD", fd}, {"PMI_RANK", rank}, {"PMI_SIZE", size}});
    try {
      PmiClient::from_environment();
    } catch (const weft::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("abc", "0", "1"), "PMI_FD 'abc': expected an integer in [0, 2147483647]");
  EXPECT_EQ(message("-1", "0", "1"), "PMI_FD '-1': expected an integer in [0, 2147483647]");
  EXPECT_EQ(message("1000000", "0", "1").rfind("PMI_FD '1000000': not an open file descriptor", 0),
            0u);
  EXPECT_EQ(message("0", "x", "1"), "PMI_RANK 'x': expected an integer in [0, 2147483647]");
  EXPECT_EQ(message("0", "0", "0"), "PMI_SIZE '0': expected an integer in [1, 2147483647]");
  EXPECT_EQ(message("0", "3", "3"), "PMI_RANK '3': not below PMI_SIZE '3'");
}

// ---- The real process manager ----

// The probe binary from the test's runfiles.
std::string probe_path() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/tests/rendezvous/pmi_probe";
  }
  return "tests/rendezvous/pmi_probe";  // bazel runs tests from the runfiles root
}

TEST(PmiClientWithHydra, ThreeRanksMeetThroughMpiexec) {
  std::string mpiexec = weft::testing::find_on_path({"mpiexec.hydra", "mpiexec.mpich"});
  if (mpiexec.empty()) {
    GTEST_SKIP() << "neither mpiexec.hydra nor mpiexec.mpich is on PATH (install the Debian "
                    "mpich package to run this test)";
  }
  std::string probe = probe_path();
  ASSERT_EQ(access(probe.c_str(), X_OK), 0) << "no probe at " << probe;
  // The PMI variables of a launcher this test itself may run under must not leak in.
  weft::testing::LaunchedJob job =
      weft::testing::run_launched_job({mpiexec, "-n", "3", probe}, std::chrono::seconds(60));
  ASSERT_FALSE(job.timed_out) << mpiexec << " -n 3 " << probe
                              << " did not finish within 60 s; output so far:\n"
                              << job.output;
  EXPECT_TRUE(job.exited_with(0)) << mpiexec << " ended with " << job.describe() << "; output:\n"
                                  << job.output;
  for (int rank = 0; rank < 3; ++rank) {
    std::string line = "pmi_probe rank " + std::to_string(rank) + " of 3 ok\n";
    EXPECT_NE(job.output.find(line), std::string::npos) << "missing '" << line << "' in:\n"
                                                        << job.output;
  }
}

}  // namespace

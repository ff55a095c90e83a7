// init_process_group between real processes: init methods, store hosting, and every
// way a job can fail to assemble, each reported clearly on every process involved.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "base/socket.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"
#include "tests/harness/multiprocess.h"
#include "tests/runtime/init_checks.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::expect_init_error;
using weft::testing::ring_check;
using weft::testing::run_ranks;
using weft::testing::RunOptions;
using namespace std::chrono_literals;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

RunOptions with_env(std::map<std::string, std::string> env) {
  RunOptions o;
  o.env = std::move(env);
  return o;
}

RunOptions with_env_per_rank(std::function<std::map<std::string, std::string>(int)> env) {
  RunOptions o;
  o.rank_env = std::move(env);
  return o;
}

RunOptions rank0_hosts_store(std::map<std::string, std::string> env = {}) {
  RunOptions o;
  o.launcher_store = false;
  o.env = std::move(env);
  return o;
}

TEST(Init, EnvMethodWithRankZeroHostingTheStore) {
  expect_all_succeeded(run_ranks(
      3,
      [](int rank) {
        weft::init_process_group("auto", "env://");
        EXPECT_TRUE(weft::is_initialized());
        ring_check(rank, 3);
        weft::destroy_process_group();
        EXPECT_FALSE(weft::is_initialized());
      },
      rank0_hosts_store()));
}

TEST(Init, TcpMethodWithExplicitRanks) {
  RunOptions o = rank0_hosts_store();
  o.rank_env = [](int) {
    return std::map<std::string, std::string>{{"RANK", ""}, {"WORLD_SIZE", ""}};
  };
  expect_all_succeeded(run_ranks(
      3,
      [](int rank) {
        weft::init_process_group("tcp", "tcp://127.0.0.1:" + env("MASTER_PORT"), 3, rank);
        EXPECT_EQ(weft::get_rank(), rank);
        ring_check(rank, 3);
        weft::destroy_process_group();
      },
      o));
}

TEST(Init, TcpMethodOverIpv6) {
  try {
    weft::base::listen_on(weft::base::resolve("::1", 0).front(), 1);
  } catch (const weft::Error&) {
    GTEST_SKIP() << "this machine has no IPv6 loopback";
  }
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group("auto", "tcp://[::1]:" + env("MASTER_PORT"), 2, rank);
        ring_check(rank, 2);
        weft::destroy_process_group();
      },
      rank0_hosts_store()));
}

TEST(Init, RestartingAJobOnTheSamePortWorks) {
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        for (int round = 0; round < 3; ++round) {
          weft::init_process_group();
          ring_check(rank, 2);
          weft::destroy_process_group();
        }
      },
      rank0_hosts_store()));
}

TEST(Init, MissingRanksTimeOutNamingThem) {
  // Two processes of a world of three: both must give up and say rank 2 is missing.
  expect_all_succeeded(run_ranks(2, [](int rank) {
    auto start = std::chrono::steady_clock::now();
    expect_init_error<weft::TimeoutError>(
        [&] { weft::init_process_group("auto", "env://", 3, rank, "", 1500ms); },
        {"2/3 ranks joined", "missing ranks: 2", "joined: 0 (", "1 ("});
    EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  }));
}

TEST(Init, DuplicateRankIsRefusedOnEveryProcess) {
  RunOptions o;
  o.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"RANK", rank == 2 ? "1" : std::to_string(rank)}};
  };
  o.env = {{"WEFT_TIMEOUT", "60"}};
  auto start = std::chrono::steady_clock::now();
  expect_all_succeeded(run_ranks(
      3,
      [](int) {
        expect_init_error<weft::InvalidArgument>([] { weft::init_process_group(); },
                                                 {"rank 1 was claimed twice"});
      },
      o));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "the refusal waited for the timeout";
}

TEST(Init, RankOutsideTheWorldIsRefusedOnEveryProcess) {
  RunOptions o;
  o.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"RANK", rank == 1 ? "5" : "0"}};
  };
  o.env = {{"WEFT_TIMEOUT", "60"}};
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        expect_init_error<weft::InvalidArgument>([] { weft::init_process_group(); },
                                                 {"rank 5 is outside [0, 2)"});
      },
      o));
}

TEST(Init, WorldSizeDisagreementIsRefused) {
  RunOptions o;
  o.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"WORLD_SIZE", rank == 1 ? "3" : "2"}};
  };
  o.env = {{"WEFT_TIMEOUT", "60"}};
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        expect_init_error<weft::InvalidArgument>(
            [] { weft::init_process_group(); },
            {"was started with world_size 3 but rank 0 with 2"});
      },
      o));
}

TEST(Init, AStorePortHeldByAnotherServerIsReportedAsInUse) {
  // Hold the port, so that rank 0 cannot host the store on it; rank 1 meets the holder.
  weft::base::Fd held = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 4);
  std::string port = std::to_string(weft::base::local_address(held.get()).port());
  RunOptions o = rank0_hosts_store({{"MASTER_PORT", port}, {"WEFT_TIMEOUT", "120"}});
  o.rank_env = [](int rank) {
    // Rank 0 without MASTER_ADDR binds every address: the held port is still taken.
    return std::map<std::string, std::string>{{"MASTER_ADDR", rank == 0 ? "" : "127.0.0.1"}};
  };
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        const std::string port = env("MASTER_PORT");
        if (rank == 0) {
          expect_init_error<weft::Error>(
              [] { weft::init_process_group(); },
              {"cannot host the rendezvous store", "port " + port + " is in use by another job",
               "choose another MASTER_PORT"});
        } else {
          expect_init_error<weft::InvalidArgument>(
              [] { weft::init_process_group(); },
              {"127.0.0.1:" + port + " is not a weft rendezvous store",
               "port " + port + " seems to be used by something else"});
        }
      },
      o));
}

// A service that accepts connections and closes them at once: rank 1 does not keep
// joining again until its timeout.
TEST(Init, AServiceThatClosesEveryConnectionIsReportedAsUsingThePort) {
  weft::base::Fd listener = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 64);
  const uint16_t port = weft::base::local_address(listener.get()).port();
  std::atomic<bool> stop{false};
  std::thread closer([&] {
    while (!stop) {
      pollfd p{listener.get(), POLLIN, 0};
      if (poll(&p, 1, 50) > 0) close(accept(listener.get(), nullptr, nullptr));
    }
  });
  RunOptions o =
      rank0_hosts_store({{"MASTER_PORT", std::to_string(port)}, {"WEFT_TIMEOUT", "120"}});
  o.timeout = 60s;
  auto ranks = run_ranks(
      2,
      [](int rank) {
        if (rank == 0) return;  // its bind would fail; rank 1 is the one that meets the service
        expect_init_error<weft::Error>(
            [] { weft::init_process_group(); },
            {"closed before the join was done",
             "port " + env("MASTER_PORT") + " seems to be used by something else"});
      },
      o);
  stop = true;
  closer.join();
  expect_all_succeeded(ranks);
}

// Another job's store on the port this job was told to use: rank 0 cannot bind it, and
// the others, meeting that store, are told it is another job's, however they meet it.
TEST(Init, AStorePortHeldByAnotherJobIsReportedAsInUse) {
  // The other job: its store, in which a job of two ranks has assembled.
  weft::rendezvous::TcpStoreServer other(weft::base::resolve("127.0.0.1", 0).front());
  {
    weft::rendezvous::TcpStoreClient member("127.0.0.1", other.port(),
                                            weft::base::Deadline::after(10s));
    member.set("default/0/job", "2 12345", weft::base::Deadline::after(10s));
    member.set("default/0/complete", "1", weft::base::Deadline::after(10s));
  }
  RunOptions o =
      rank0_hosts_store({{"MASTER_PORT", std::to_string(other.port())}, {"WEFT_TIMEOUT", "120"}});
  expect_all_succeeded(run_ranks(
      3,
      [](int rank) {
        const std::string port = env("MASTER_PORT");
        if (rank == 0) {
          expect_init_error<weft::Error>([] { weft::init_process_group(); },
                                         {"port " + port + " is in use by another job"});
        } else {
          expect_init_error<weft::InvalidArgument>(
              [] { weft::init_process_group(); },
              {"belongs to another job, which assembled there with 2 ranks",
               "choose another MASTER_PORT"});
        }
      },
      o));
}

TEST(Init, AStorePortHeldByAnotherJobWithATokenIsReportedAsInUse) {
  // The other job's store, with a token of its own (made here, not in the ranks, whose
  // environment carries this job's token).
  std::unique_ptr<weft::rendezvous::TcpStoreServer> other;
  if (!weft::testing::is_rank_process()) {
    setenv("WEFT_AUTH_TOKEN", "the other job's", 1);
    other = std::make_unique<weft::rendezvous::TcpStoreServer>(
        weft::base::resolve("127.0.0.1", 0).front());
    unsetenv("WEFT_AUTH_TOKEN");
  }
  RunOptions o = rank0_hosts_store({{"MASTER_PORT", other ? std::to_string(other->port()) : ""},
                                    {"WEFT_TIMEOUT", "120"},
                                    {"WEFT_AUTH_TOKEN", "this job's"}});
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        const std::string port = env("MASTER_PORT");
        if (rank == 0) {
          expect_init_error<weft::Error>([] { weft::init_process_group(); },
                                         {"port " + port + " is in use by another job"});
        } else {
          expect_init_error<weft::InvalidArgument>(
              [] { weft::init_process_group(); },
              {"refused this process's WEFT_AUTH_TOKEN",
               "port " + port + " is most likely in use by another job",
               "choose another MASTER_PORT"});
        }
      },
      o));
}

TEST(Init, RankZeroNeedsNoMasterAddr) {
  RunOptions o = rank0_hosts_store();
  o.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"MASTER_ADDR", rank == 0 ? "" : "127.0.0.1"}};
  };
  expect_all_succeeded(run_ranks(
      3,
      [](int rank) {
        EXPECT_EQ(env("MASTER_ADDR").empty(), rank == 0);
        weft::init_process_group();
        ring_check(rank, 3);
        weft::destroy_process_group();
      },
      o));
}

TEST(Init, OtherRanksNeedMasterAddr) {
  expect_all_succeeded(run_ranks(
      1,
      [](int) {
        expect_init_error<weft::InvalidArgument>(
            [] { weft::init_process_group("auto", "env://", 2, 1); },
            {"(rank 1)", "not set: MASTER_ADDR", "on every rank but 0 MASTER_ADDR"});
      },
      with_env({{"MASTER_ADDR", ""}, {"MASTER_PORT", "29999"}})));
}

// The original's backend names: each means weft's own transports, and one INFO line
// says what was asked for and what was chosen.
TEST(Init, OriginalBackendNamesMeanWeftsOwnTransports) {
  auto ranks = run_ranks(
      2,
      [](int rank) {
        weft::init_process_group(rank == 0 ? "NCCL" : "gloo");
        ring_check(rank, 2);
        weft::destroy_process_group();
        weft::init_process_group(rank == 0 ? "Mpi" : "mpi");
        ring_check(rank, 2);
        weft::destroy_process_group();
        weft::init_process_group(rank == 0 ? "TCP" : "tcp");
        ring_check(rank, 2);
        weft::destroy_process_group();
        // Ranks may differ: a pair where either side rules shared memory out uses TCP.
        weft::init_process_group(rank == 0 ? "nccl" : "tcp");
        ring_check(rank, 2);
        EXPECT_EQ(weft::testing::rank_bits(), 3);
        weft::destroy_process_group();
      },
      with_env({{"WEFT_DEBUG", "INFO"}}));
  expect_all_succeeded(ranks);
  auto count = [](const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  };
  const std::string& zero = ranks[0].output;
  const std::string& one = ranks[1].output;
  EXPECT_EQ(count(zero, "backend \"NCCL\": using weft's own transports (shm, tcp)\n"), 1) << zero;
  EXPECT_EQ(count(zero, "backend \"Mpi\": using weft's own transports (shm, tcp)\n"), 1) << zero;
  EXPECT_EQ(count(one, "backend \"gloo\": using weft's own transports (shm, tcp)\n"), 1) << one;
  EXPECT_EQ(count(one, "backend \"mpi\": using weft's own transports (shm, tcp)\n"), 1) << one;
  EXPECT_EQ(count(zero, "backend \"TCP\": using TCP only (tcp)\n"), 1) << zero;
  EXPECT_EQ(count(one, "backend \"tcp\": using TCP only (tcp)\n"), 2) << one;
  EXPECT_EQ(count(zero, "backend \"nccl\": using weft's own transports (shm, tcp)\n"), 1) << zero;
  EXPECT_EQ(count(zero, "shared memory not used, since rank 1's backend"), 1) << zero;
  EXPECT_EQ(count(zero, "backend \""), 4) << zero;
}

// One rank's init fails once it has reached the store: the others, waiting at the
// rendezvous with a long timeout, fail at once naming that rank and its cause (the
// harness's own deadline, shorter than their timeout, catches a wait). Rank 1 arrives
// late, after rank 0 has failed: rank 0's store stays up until it has heard.
TEST(Init, ARankWhoseInitFailsStopsTheOthersWaitingAtTheRendezvous) {
  RunOptions o = rank0_hosts_store({{"WEFT_TIMEOUT", "120"}});
  o.timeout = 60s;
  o.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"WORLD_SIZE", rank == 2 ? "4" : "3"}};
  };
  expect_all_succeeded(run_ranks(
      3,
      [](int rank) {
        if (rank == 1) std::this_thread::sleep_for(1s);
        expect_init_error<weft::InvalidArgument>(
            [] { weft::init_process_group(); },
            {"rank 2 (", "was started with world_size 4 but rank 0 with 3"});
      },
      o));
}

// One rank asks for an unknown backend; every other rank fails at once with its cause,
// rank 2 arriving a second late.
void expect_bad_backend_stops_the_others(int bad_rank) {
  RunOptions o = rank0_hosts_store({{"WEFT_TIMEOUT", "120"}});
  o.timeout = 60s;
  expect_all_succeeded(run_ranks(
      3,
      [bad_rank](int rank) {
        if (rank == 2) std::this_thread::sleep_for(1s);
        expect_init_error<weft::InvalidArgument>(
            [&] { weft::init_process_group(rank == bad_rank ? "infiniband" : "auto"); },
            {rank == bad_rank ? "init_process_group" : "rank " + std::to_string(bad_rank) + " (",
             "backend 'infiniband' is not supported"});
      },
      o));
}

// Rank 2 arrives after rank 0 has learnt of the abort: rank 0 keeps its store up until
// every rank has heard, so rank 2 hears too instead of finding no store.
TEST(Init, ARankWithAnUnknownBackendStopsTheOthers) { expect_bad_backend_stops_the_others(1); }

// Rank 0 fails before any store exists: it hosts one only to tell the others.
TEST(Init, ARankZeroWithAnUnknownBackendStopsTheOthers) { expect_bad_backend_stops_the_others(0); }

TEST(Init, UnreachableStoreNamesTheAddress) {
  uint16_t port;
  {
    weft::base::Fd probe = weft::base::listen_on(weft::base::resolve("127.0.0.1", 0).front(), 1);
    port = weft::base::local_address(probe.get()).port();
  }  // closed: nothing listens there now
  RunOptions o = rank0_hosts_store({{"MASTER_PORT", std::to_string(port)}});
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        if (rank == 0) return;  // rank 1 waits for a store that never comes
        expect_init_error<weft::TimeoutError>(
            [] { weft::init_process_group("auto", "env://", 2, 1, "", 1s); },
            {"could not reach the rendezvous store at 127.0.0.1:" + env("MASTER_PORT")});
      },
      o));
}

TEST(Init, SocketInterfaceIsHonoured) {
  expect_all_succeeded(run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        ring_check(rank, 2);
        weft::destroy_process_group();
      },
      with_env({{"WEFT_SOCKET_IFNAME", "lo"}})));
}

TEST(Init, UnknownSocketInterfaceIsRefused) {
  expect_all_succeeded(run_ranks(
      1,
      [](int) {
        expect_init_error<weft::InvalidArgument>(
            [] { weft::init_process_group("auto", "env://", 2, 0, "", 2s); },
            {"WEFT_SOCKET_IFNAME=weft-no-such0"});
      },
      with_env({{"WEFT_SOCKET_IFNAME", "weft-no-such0"}})));
}

TEST(Init, AStoreConnectionWithTheWrongTokenIsRefusedWhileTheJobGoesOn) {
  auto ranks = run_ranks(
      2,
      [](int rank) {
        weft::init_process_group();
        if (rank == 1) {
          // A stranger at rank 0's store, from this process: refused, and harmless.
          setenv("WEFT_AUTH_TOKEN", "a guess", 1);
          try {
            weft::rendezvous::TcpStoreClient stranger(
                env("MASTER_ADDR"), static_cast<uint16_t>(std::stoi(env("MASTER_PORT"))),
                weft::base::Deadline::after(5s));
            ADD_FAILURE() << "the store accepted a wrong token";
          } catch (const weft::InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("WEFT_AUTH_TOKEN"), std::string::npos);
          }
          setenv("WEFT_AUTH_TOKEN", "job secret", 1);
        }
        ring_check(rank, 2);
        weft::barrier();
        weft::destroy_process_group();
      },
      rank0_hosts_store({{"WEFT_AUTH_TOKEN", "job secret"}}));
  expect_all_succeeded(ranks);
  EXPECT_NE(ranks[0].output.find("wrong WEFT_AUTH_TOKEN"), std::string::npos) << ranks[0].output;
}

TEST(Init, ALinkWithTheWrongTokenIsRefused) {
  // The harness's store asks for no token, so the ranks meet there; rank 1's link to
  // rank 0 then carries another token than rank 0's.
  auto ranks = run_ranks(
      2,
      [](int rank) {
        // Rank 1 learns why; rank 0 that the join was aborted.
        expect_init_error<weft::Error>(
            [] { weft::init_process_group("auto", "env://", -1, -1, "", 10s); },
            rank == 1 ? std::vector<std::string>{"refused the connection", "WEFT_AUTH_TOKEN"}
                      : std::vector<std::string>{});
      },
      with_env_per_rank([](int rank) {
        return std::map<std::string, std::string>{{"WEFT_AUTH_TOKEN", rank == 0 ? "one" : "other"},
                                                  {"WEFT_DEBUG", "WARN"}};
      }));
  expect_all_succeeded(ranks);
  EXPECT_NE(ranks[0].output.find("wrong or missing WEFT_AUTH_TOKEN"), std::string::npos)
      << ranks[0].output;
}

TEST(Init, BadConfigurationIsRefused) {
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("infiniband"); },
      {"backend 'infiniband' is not supported", "'auto'", "'tcp'", "'gloo', 'mpi' or 'nccl'"});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "udp://x:1", 2, 0); },
      {"init_method 'udp://x:1' is not supported"});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "tcp://localhost", 2, 0); }, {"is not host:port"});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "tcp://127.0.0.1:1", 2, 2); },
      {"rank 2 is outside [0, 2)"});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", "tcp://127.0.0.1:1", 0, 0); },
      {"world_size 0 is invalid"});
  setenv("WEFT_TRANSPORTS", "udp", 1);
  expect_init_error<weft::InvalidArgument>([] { weft::init_process_group(); },
                                           {"unknown transport 'udp'"});
  unsetenv("WEFT_TRANSPORTS");
  setenv("WEFT_TIMEOUT", "soon", 1);
  expect_init_error<weft::InvalidArgument>([] { weft::init_process_group(); },
                                           {"WEFT_TIMEOUT=soon"});
  unsetenv("WEFT_TIMEOUT");
}

TEST(Init, WithNothingSetAProcessIsAWorldOfOne) {
  expect_all_succeeded(run_ranks(
      1,
      [](int) {
        weft::init_process_group();
        EXPECT_EQ(weft::get_world_size(), 1);
        EXPECT_EQ(weft::get_rank(), 0);
        std::vector<int> a{1, 2, 3}, b(3);
        weft::send(weft::view(a), 0);
        weft::recv(weft::view(b), 0);
        EXPECT_EQ(a, b);
        try {
          weft::init_process_group();
          ADD_FAILURE() << "a second init succeeded";
        } catch (const weft::Error& e) {
          EXPECT_EQ(e.code(), weft::ErrorCode::kState);
          EXPECT_NE(std::string(e.what()).find("already initialized"), std::string::npos);
        }
        weft::destroy_process_group();
      },
      with_env({{"MASTER_ADDR", ""}, {"MASTER_PORT", ""}, {"WORLD_SIZE", ""}, {"RANK", ""}})));
}

}  // namespace

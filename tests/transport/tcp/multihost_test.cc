// Two "hosts" on this machine: network namespaces joined by a veth pair, with IPv4 and
// IPv6 addresses. Ranks on different hosts must find each other through the addresses
// they advertise (never loopback) and exchange messages. Needs root and iproute2;
// skipped, saying why, otherwise. The namespaces are removed when the suite ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace {

using weft::testing::run_ranks;
using weft::testing::RunOptions;

const std::string kSuffix = std::to_string(getpid() % 100000);
const std::string kHostA = "weft-a-" + kSuffix, kHostB = "weft-b-" + kSuffix;

bool run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

class TwoHosts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (weft::testing::is_rank_process()) return;  // the parent built the hosts
    if (geteuid() != 0 || !run("ip netns list")) {
      skip_reason_ = "needs root and iproute2 to create network namespaces";
      return;
    }
    const std::string a = "wfa" + kSuffix, b = "wfb" + kSuffix;
    bool ok = run("ip netns add " + kHostA) && run("ip netns add " + kHostB) &&
              run("ip link add " + a + " type veth peer name " + b) &&
              run("ip link set " + a + " netns " + kHostA) &&
              run("ip link set " + b + " netns " + kHostB);
    for (const auto& [ns, dev, n] : {std::tuple{kHostA, a, 1}, std::tuple{kHostB, b, 2}}) {
      ok = ok && run("ip -n " + ns + " addr add 10.77.0." + std::to_string(n) + "/24 dev " + dev) &&
           run("ip -n " + ns + " addr add fd77::" + std::to_string(n) + "/64 dev " + dev +
               " nodad") &&
           run("ip -n " + ns + " link set " + dev + " up") &&
           run("ip -n " + ns + " link set lo up");
    }
    // Running a process inside a namespace needs more than creating one (it remounts
    // /sys), and some containers allow only the latter.
    ok = ok && run("ip netns exec " + kHostA + " true");
    if (!ok) skip_reason_ = "could not set up the network namespaces";
  }
  static void TearDownTestSuite() {
    if (weft::testing::is_rank_process()) return;
    run("ip netns del " + kHostA);  // deleting a namespace removes its veth end, and
    run("ip netns del " + kHostB);  // with it the pair
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }

  // Rank 0 on host A, which also hosts the store at `master`; rank 1 on host B.
  static RunOptions on_two_hosts(const std::string& master,
                                 std::map<std::string, std::string> env = {}) {
    RunOptions o;
    o.launcher_store = false;
    o.env = std::move(env);
    o.env["MASTER_ADDR"] = master;
    // The namespaces share memory, which would otherwise carry the traffic; these tests
    // are about TCP between hosts.
    o.env["WEFT_TRANSPORTS"] = "tcp";
    o.env["WEFT_DEBUG"] = "INFO";
    o.wrapper = [](int rank) {
      return std::vector<std::string>{"ip", "netns", "exec", rank == 0 ? kHostA : kHostB};
    };
    return o;
  }

  static void exchange(int rank) {
    weft::init_process_group("auto", "env://", 2, -1, "", std::chrono::seconds(30));
    std::vector<int64_t> data(1 << 17);  // 1 MiB: the rendezvous path as well
    for (size_t i = 0; i < data.size(); ++i) data[i] = rank == 0 ? static_cast<int64_t>(i) : -1;
    if (rank == 0) {
      weft::send(weft::view(data), 1);
    } else {
      weft::recv(weft::view(data), 0);
      EXPECT_EQ(data[12345], 12345);
    }
    weft::destroy_process_group();
  }

  static std::string skip_reason_;
};
std::string TwoHosts::skip_reason_;

void expect_links_over(const std::vector<weft::testing::RankResult>& ranks, const std::string& a,
                       const std::string& b) {
  for (const auto& r : ranks) {
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(another host or network namespace)"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("tcp 127.0.0.1"), std::string::npos) << "loopback between hosts:\n"
                                                                 << r.output;
  }
  EXPECT_NE(ranks[0].output.find("tcp " + a), std::string::npos) << ranks[0].output;
  EXPECT_NE(ranks[1].output.find("tcp " + b), std::string::npos) << ranks[1].output;
}

TEST_F(TwoHosts, RanksConnectOverIpv4) {
  auto ranks = run_ranks(2, exchange, on_two_hosts("10.77.0.1"));
  expect_links_over(ranks, "10.77.0.1:", "10.77.0.2:");
}

TEST_F(TwoHosts, RanksConnectOverIpv6) {
  auto ranks = run_ranks(2, exchange, on_two_hosts("fd77::1"));
  expect_links_over(ranks, "[fd77::1]:", "[fd77::2]:");
}

TEST_F(TwoHosts, LoopbackIsNeverUsedAcrossHosts) {
  // Pinned to loopback, rank 0 advertises nothing rank 1 may use: rank 1 must say so.
  auto ranks = run_ranks(
      2,
      [](int rank) {
        try {
          weft::init_process_group("auto", "env://", 2, -1, "", std::chrono::seconds(10));
          ADD_FAILURE() << "ranks on different hosts connected over loopback";
        } catch (const weft::Error& e) {
          if (rank == 0) {
            EXPECT_NE(std::string(e.what()).find("the rendezvous was aborted"), std::string::npos)
                << e.what();
          }
          if (rank == 1) {
            EXPECT_NE(std::string(e.what()).find("could not connect to rank 0 at 127.0.0.1:"),
                      std::string::npos)
                << e.what();
          }
        }
      },
      on_two_hosts("10.77.0.1", {{"WEFT_SOCKET_IFNAME", "lo"}}));
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
}

}  // namespace

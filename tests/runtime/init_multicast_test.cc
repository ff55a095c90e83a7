// init_process_group with tcp://[multicast group]:port, in network namespaces of this
// machine only: one whose loopback carries IPv4 multicast, and three "hosts" joined by a
// bridge (IPv4 and IPv6). Automatic and explicit ranks, two jobs on one address, too many
// members, and nobody to meet. Needs root and iproute2; skipped, saying why, otherwise.
// The namespaces are removed when the suite ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/harness/bridged_hosts.h"
#include "tests/harness/multiprocess.h"
#include "tests/runtime/init_checks.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::expect_init_error;
using weft::testing::expect_one_job_or_none;
using weft::testing::rank_bits;
using weft::testing::ring_check;
using weft::testing::run_ranks;
using weft::testing::RunOptions;
using namespace std::chrono_literals;

const std::string kLoopbackHost = "weft-mcl-" + std::to_string(getpid() % 100000);

using weft::testing::run_quietly;

// A port of its own per test, so that datagrams of one test never reach the next.
std::string group_url(const std::string& group, int offset) {
  return "tcp://" + group + ":" + std::to_string(29700 + offset);
}

class MulticastInit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (weft::testing::is_rank_process()) return;  // the parent built the hosts
    // Three hosts on a bridge, with multicast routes.
    bridged_ = std::make_unique<weft::testing::BridgedHosts>("mc", 3, 78, true);
    if (!bridged_->failure().empty()) {
      skip_reason_ = bridged_->failure();
      return;
    }
    // One host whose loopback carries multicast.
    bool ok = run_quietly("ip netns add " + kLoopbackHost) &&
              run_quietly("ip -n " + kLoopbackHost + " link set lo up multicast on") &&
              run_quietly("ip -n " + kLoopbackHost + " route add 224.0.0.0/4 dev lo") &&
              run_quietly("ip netns exec " + kLoopbackHost + " true");
    if (!ok) skip_reason_ = "could not set up the network namespaces";
  }
  static void TearDownTestSuite() {
    if (weft::testing::is_rank_process()) return;
    run_quietly("ip netns del " + kLoopbackHost);
    bridged_.reset();
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }

  // Every rank on the loopback host, with no rendezvous variables of the harness's.
  static RunOptions on_loopback_host() {
    RunOptions o;
    o.wrapper = [](int) { return std::vector<std::string>{"ip", "netns", "exec", kLoopbackHost}; };
    o.env["WEFT_DEBUG"] = "INFO";
    return o;
  }
  static RunOptions one_per_bridged_host() {
    RunOptions o;
    o.wrapper = [](int launched) { return bridged_->exec(launched); };
    o.env["WEFT_DEBUG"] = "INFO";
    return o;
  }
  // The harness's own job variables would make these processes an env:// job.
  static void forget_harness_job() {
    for (const char* name : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) unsetenv(name);
  }

  static inline std::string skip_reason_;
  static inline std::unique_ptr<weft::testing::BridgedHosts> bridged_;
};

TEST_F(MulticastInit, FourProcessesOnOneHostGetDistinctRanks) {
  auto ranks = run_ranks(
      4,
      [](int) {
        forget_harness_job();
        weft::init_process_group("auto", group_url("239.78.0.1", 0), 4, -1, "", 30s);
        EXPECT_EQ(rank_bits(), 15);
        ring_check(weft::get_rank(), 4);
        weft::destroy_process_group();
      },
      on_loopback_host());
  expect_all_succeeded(ranks);
}

TEST_F(MulticastInit, ThreeHostsOverIpv6) {
  // A site-scope group: its datagrams come from the hosts' fd78:: addresses, which the
  // members can dial (a link-scope group's would come from link-local ones).
  auto ranks = run_ranks(
      3,
      [](int) {
        forget_harness_job();
        weft::init_process_group("auto", group_url("[ff05::78]", 1), 3, -1, "", 30s);
        EXPECT_EQ(rank_bits(), 7);
        ring_check(weft::get_rank(), 3);
        weft::destroy_process_group();
      },
      one_per_bridged_host());
  expect_all_succeeded(ranks);
}

TEST_F(MulticastInit, ThreeHostsOnABridgeWithOneExplicitRank) {
  auto ranks = run_ranks(
      3,
      [](int launched) {
        forget_harness_job();
        int asked = launched == 0 ? 2 : -1;  // the first host asks for rank 2
        weft::init_process_group("auto", group_url("239.78.0.2", 2), 3, asked, "", 30s);
        if (launched == 0) {
          EXPECT_EQ(weft::get_rank(), 2);
        }
        EXPECT_EQ(rank_bits(), 7);
        ring_check(weft::get_rank(), 3);
        weft::destroy_process_group();
      },
      one_per_bridged_host());
  expect_all_succeeded(ranks);
}

TEST_F(MulticastInit, JobsOfOtherGroupNamesAndSizesAreIgnored) {
  // On one address: job "x" of 2, job "y" of 2 and job "y" of 3.
  auto ranks = run_ranks(
      7,
      [](int launched) {
        forget_harness_job();
        std::string name = launched < 2 ? "x" : "y";
        int size = launched < 4 ? 2 : 3;
        weft::init_process_group("auto", group_url("239.78.0.3", 3), size, -1, name, 30s);
        EXPECT_EQ(weft::get_world_size(), size);
        EXPECT_EQ(rank_bits(), (1 << size) - 1);
        int32_t members = 1;  // each job counts only its own
        weft::all_reduce(weft::view(std::span(&members, 1)));
        EXPECT_EQ(members, size);
        weft::destroy_process_group();
      },
      on_loopback_host());
  expect_all_succeeded(ranks);
}

TEST_F(MulticastInit, MoreMembersThanWorldSizeAreRefused) {
  auto ranks = run_ranks(
      3,
      [](int) {
        forget_harness_job();
        try {
          weft::init_process_group("auto", group_url("239.78.0.4", 4), 2, -1, "", 20s);
          EXPECT_EQ(rank_bits(), 3);
          // A job that runs a while: one that ended is no longer there to refuse anyone.
          std::this_thread::sleep_for(2s);
          weft::destroy_process_group();
          std::cout << "assembled" << std::endl;
        } catch (const weft::InvalidArgument& e) {
          EXPECT_NE(std::string(e.what()).find("more than 2 processes answered"), std::string::npos)
              << e.what();
          std::cout << "refused" << std::endl;
        }
      },
      on_loopback_host());
  expect_all_succeeded(ranks);
  expect_one_job_or_none(ranks, 2);
}

TEST_F(MulticastInit, NobodyToMeetTimesOutSayingWhoWasFound) {
  auto ranks = run_ranks(
      1,
      [](int) {
        forget_harness_job();
        expect_init_error<weft::TimeoutError>(
            [] { weft::init_process_group("auto", group_url("239.78.0.5", 5), 3, -1, "", 1s); },
            {"1/3 members found", "239.78.0.5"});
      },
      on_loopback_host());
  expect_all_succeeded(ranks);
}

TEST_F(MulticastInit, WorldSizeIsRequired) {
  forget_harness_job();
  expect_init_error<weft::InvalidArgument>(
      [] { weft::init_process_group("auto", group_url("239.78.0.6", 6), -1, -1); },
      {"needs world_size"});
}

}  // namespace

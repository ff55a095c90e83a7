// `ib` in WEFT_TRANSPORTS: alone it is refused at init where no verbs port is usable,
// with the reason, and runs a job where one is (the soft verbs device); beside other
// transports, they serve and one line says what verbs found. With WEFT_TRANSPORTS
// unset, WEFT_DEBUG=INFO shows one line per process about verbs devices, and peers on
// this host never use verbs. Malformed WEFT_IB_* values are refused naming the variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <span>
#include <string>

#include "runtime/init/transports.h"
#include "tests/harness/multiprocess.h"
#include "tests/runtime/init_checks.h"
#include "tests/transport/ib/fake_verbs.h"
#include "transport/ib/devices.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::expect_init_error;
using weft::testing::FakePort;
using weft::testing::FakeVerbs;
using weft::testing::run_ranks;
using weft::testing::RunOptions;

FakePort roce_port() {
  FakePort port;
  port.gids = {weft::testing::roce_v2_ipv4(10, 0, 0, 1)};
  return port;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(TransportSelection, IbAloneOnThisHostIsRefusedWithTheReasonUnlessADeviceServes) {
  const weft::transport::ib::VerbsReport here = weft::transport::ib::probe_verbs_devices();
  ScopedEnv transports("WEFT_TRANSPORTS", "ib");
  if (here.usable()) {
    const weft::runtime::TransportChoice choice = weft::runtime::select_transports("auto");
    EXPECT_TRUE(choice.ib && choice.ib_asked);
  } else {
    expect_init_error<weft::InvalidArgument>(
        [] { weft::init_process_group(); },
        {"WEFT_TRANSPORTS=ib: no verbs device to use: " + here.why_none,
         "(leave WEFT_TRANSPORTS unset, or add shm and tcp)"});
  }
}

TEST(TransportSelection, IbAloneIsChosenWhereAPortIsUsable) {
  ScopedEnv transports("WEFT_TRANSPORTS", "ib");
  {
    FakeVerbs fake({{"fake_0", {roce_port()}}});
    const weft::runtime::TransportChoice choice = weft::runtime::select_transports("auto");
    EXPECT_TRUE(choice.ib);
    EXPECT_TRUE(choice.ib_asked);
    EXPECT_FALSE(choice.tcp);
    EXPECT_FALSE(choice.shm);
    EXPECT_EQ(fake.probes(), 1);
  }
  FakeVerbs none({});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::runtime::select_transports("auto"); },
      {"WEFT_TRANSPORTS=ib: no verbs device to use: no RDMA devices (ibv_get_device_list "
       "returned 0 devices)"});
  FakePort down = roce_port();
  down.state = IBV_PORT_DOWN;
  FakeVerbs only_down({{"fake_0", {down}}});
  expect_init_error<weft::InvalidArgument>(
      [] { weft::runtime::select_transports("auto"); },
      {"WEFT_TRANSPORTS=ib: no verbs device to use: no usable RDMA port (fake_0 port 1: the "
       "port is DOWN)"});
}

TEST(TransportSelection, IbBesideOthersLeavesThemToServe) {
  for (bool device : {false, true}) {
    FakeVerbs fake(device ? std::vector<weft::testing::FakeDevice>{{"fake_0", {roce_port()}}}
                          : std::vector<weft::testing::FakeDevice>{});
    ScopedEnv transports("WEFT_TRANSPORTS", "shm,tcp,ib");
    const weft::runtime::TransportChoice choice = weft::runtime::select_transports("auto");
    EXPECT_TRUE(choice.shm);
    EXPECT_TRUE(choice.tcp);
    EXPECT_EQ(choice.ib, device);  // no port: verbs are left out
    EXPECT_EQ(fake.probes(), 1);
  }
}

TEST(TransportSelection, BackendTcpRulesIbOut) {
  FakeVerbs fake({{"fake_0", {roce_port()}}});
  ScopedEnv transports("WEFT_TRANSPORTS", "tcp,ib");
  const weft::runtime::TransportChoice choice = weft::runtime::select_transports("tcp");
  EXPECT_TRUE(choice.tcp);
  EXPECT_FALSE(choice.shm);
  EXPECT_FALSE(choice.ib);
  EXPECT_EQ(fake.probes(), 0);
}

TEST(TransportSelection, UnsetLeavesIbToPeersOnOtherHostsWithoutProbing) {
  FakeVerbs fake({{"fake_0", {roce_port()}}});
  const weft::runtime::TransportChoice choice = weft::runtime::select_transports("auto");
  EXPECT_TRUE(choice.ib);
  EXPECT_FALSE(choice.ib_asked);
  EXPECT_EQ(fake.probes(), 0);  // below INFO nothing is probed until a peer needs it
}

TEST(TransportSelection, UnknownNamesListIb) {
  ScopedEnv transports("WEFT_TRANSPORTS", "udp");
  expect_init_error<weft::InvalidArgument>(
      [] { weft::runtime::select_transports("auto"); },
      {"WEFT_TRANSPORTS=udp: unknown transport 'udp' (known: shm, tcp, ib)"});
}

TEST(TransportSelection, MalformedIbVariablesAreRefusedWhetherOrNotIbIsAsked) {
  {
    ScopedEnv hca("WEFT_IB_HCA", "mlx5_0:port1");
    expect_init_error<weft::InvalidArgument>(
        [] { weft::init_process_group(); },
        {"WEFT_IB_HCA=mlx5_0:port1: port 'port1' of mlx5_0 is not a number in [1, 255]"});
  }
  ScopedEnv index("WEFT_IB_GID_INDEX", "-2");
  ScopedEnv transports("WEFT_TRANSPORTS", "shm,tcp,ib");
  expect_init_error<weft::InvalidArgument>([] { weft::init_process_group(); },
                                           {"WEFT_IB_GID_INDEX=-2: expected an integer"});
}

// Two ranks, each joining twice, with the system's verbs of this host.
void join_twice(int rank) {
  for (int round = 0; round < 2; ++round) {
    weft::init_process_group();
    weft::testing::ring_check(rank, weft::get_world_size());
    weft::destroy_process_group();
  }
}

TEST(TransportSelection, InfoSaysOncePerProcessWhatVerbsFound) {
  RunOptions options;
  options.env = {{"WEFT_DEBUG", "INFO"}};
  auto ranks = run_ranks(2, join_twice, options);
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, " weft INFO verbs: "), 1) << r.output;
    EXPECT_EQ(count(r.output, "; peers on other hosts use tcp\n"), 1) << r.output;
  }
}

TEST(TransportSelection, NoVerbsLineBelowInfo) {
  auto ranks = run_ranks(2, join_twice);
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) EXPECT_EQ(count(r.output, "verbs: "), 0) << r.output;
}

TEST(TransportSelection, JobRunsWithIbBesideOthers) {
  RunOptions options;
  options.env = {{"WEFT_DEBUG", "INFO"}, {"WEFT_TRANSPORTS", "shm,tcp,ib"}};
  auto ranks = run_ranks(2, join_twice, options);
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    // Once per init: ib was asked for each time.
    EXPECT_EQ(count(r.output, " verbs: "), 2) << r.output;
    EXPECT_NE(r.output.find("peers on other hosts use tcp"), std::string::npos) << r.output;
  }
}

// With the soft verbs device in the ranks, WEFT_TRANSPORTS=ib runs a job over verbs links.
TEST(TransportSelection, IbAloneRunsAJobOverTheSoftDevice) {
  RunOptions options;
  options.env = {{"WEFT_DEBUG", "INFO"}, {"WEFT_TRANSPORTS", "ib"}, {"WEFT_TEST_SOFT_VERBS", "1"}};
  auto ranks = run_ranks(2, join_twice, options);
  expect_all_succeeded(ranks);
  for (const auto& r : ranks) {
    EXPECT_EQ(count(r.output, ": ib softib0:1 qpn "), 2) << r.output;  // once per init
  }
}

}  // namespace

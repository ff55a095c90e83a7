// Several soft devices, as WEFT_TEST_SOFT_VERBS_DEVICES lists them: the list's syntax and
// its refusals; weft finding each device with its NUMA node and a GID of its own; a
// queue pair of one device connected to a queue pair of another, as two NICs of one
// fabric are; a malformed list making the probe say why there are no devices.
#include "tests/transport/ib/soft_verbs/device_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "transport/ib/devices.h"

namespace {

using weft::testing::connect_to_other_rank;
using weft::testing::describe;
using weft::testing::Endpoint;
using weft::testing::EndpointOptions;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::RunOptions;
using weft::testing::TestRoom;
using weft::testing::soft_verbs::DeviceSpec;
using weft::testing::soft_verbs::parse_device_list;

std::string parsed(const std::string& text) {
  std::string why;
  const auto devices = parse_device_list(text, &why);
  if (!devices) return "error: " + why;
  std::string out;
  for (const DeviceSpec& d : *devices) {
    out += (out.empty() ? "" : " ") + d.name + "@" + std::to_string(d.numa_node);
  }
  return out;
}

TEST(SoftVerbsDeviceList, NamesWithOptionalNumaNodes) {
  EXPECT_EQ(parsed(""), "softib0@-1");
  EXPECT_EQ(parsed("softib0:0,softib1:1"), "softib0@0 softib1@1");
  EXPECT_EQ(parsed("a,b.2:-1,c_3:7"), "a@-1 b.2@-1 c_3@7");
}

TEST(SoftVerbsDeviceList, RefusesWhatItCannotRead) {
  for (const char* bad : {",", "a,", "a,,b", ":1", "a:", "a:x", "a:-2", "a:1024", "a b", "a,a:1"}) {
    const std::string answer = parsed(bad);
    EXPECT_EQ(answer.rfind("error: WEFT_TEST_SOFT_VERBS_DEVICES=" + std::string(bad) + ": ", 0), 0u)
        << bad << ": " << answer;
  }
  std::string many;
  for (int i = 0; i <= weft::testing::soft_verbs::kMaxDevices; ++i) {
    many += (i ? ",d" : "d") + std::to_string(i);
  }
  EXPECT_NE(parsed(many).find("more than 16 devices"), std::string::npos);
  EXPECT_NE(parsed("a,a:1").find("a is listed twice"), std::string::npos);
}

RunOptions two_devices(const TestRoom& room) {
  RunOptions options = room.rank_options();
  options.env["WEFT_TEST_SOFT_VERBS_DEVICES"] = "softib0:0,softib1:1";
  return options;
}

TEST(SoftVerbsDeviceList, WeftFindsEachDeviceWithItsNumaNodeAndGid) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      1,
      [](int) {
        const auto report = weft::transport::ib::probe_verbs_devices();
        ASSERT_TRUE(report.usable()) << report.why_none;
        ASSERT_EQ(report.devices.size(), 2u);
        EXPECT_EQ(report.devices[0].name, "softib0");
        EXPECT_EQ(report.devices[0].numa_node, 0);
        EXPECT_EQ(report.devices[1].name, "softib1");
        EXPECT_EQ(report.devices[1].numa_node, 1);
        EXPECT_EQ(report.summary(),
                  "softib0 port 1 (Ethernet, GID 1: RoCE v2, IPv4-mapped, NUMA node 0), "
                  "softib1 port 1 (Ethernet, GID 1: RoCE v2, IPv4-mapped, NUMA node 1)");
        // Each device's RoCE v2 GID holds an address of its own: 127.0.0.<index + 1>.
        const auto& api = weft::testing::soft_verbs_api();
        int count = 0;
        ibv_device** devices = api.get_device_list(&count);
        ASSERT_EQ(count, 2);
        for (int i = 0; i < count; ++i) {
          ibv_context* context = api.open_device(devices[i]);
          ASSERT_NE(context, nullptr);
          ibv_gid gid{};
          ASSERT_EQ(api.query_gid(context, 1, 1, &gid), 0);
          EXPECT_EQ(gid.raw[12], 127);
          EXPECT_EQ(gid.raw[15], i + 1);
          EXPECT_EQ(api.close_device(context), 0);
        }
        api.free_device_list(devices);
      },
      two_devices(room)));
}

TEST(SoftVerbsDeviceList, QueuePairsOfDifferentDevicesReachEachOther) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.device = rank;  // softib0 here, softib1 there
        Endpoint me(options);
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          ASSERT_EQ(me.post_recv(1, 0, 64), 0);
          room.put("posted", "");
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].byte_len, 5u);
          EXPECT_EQ(std::string(me.buffer.begin(), me.buffer.begin() + 5), "hello");
          room.put("received", "");
        } else {
          room.get("posted");
          std::copy_n("hello", 5, me.buffer.begin());
          ASSERT_EQ(me.post_send(IBV_WR_SEND, 2, 0, 5), 0);
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          room.get("received");
        }
      },
      two_devices(room)));
}

TEST(SoftVerbsDeviceList, AMalformedListLeavesNoDevices) {
  const TestRoom room = TestRoom::for_current_test();
  RunOptions options = room.rank_options();
  options.env["WEFT_TEST_SOFT_VERBS_DEVICES"] = "softib0:x";
  expect_all_succeeded(run_ranks(
      1,
      [](int) {
        const auto report = weft::transport::ib::probe_verbs_devices();
        EXPECT_FALSE(report.usable());
        EXPECT_EQ(report.why_none,
                  "no RDMA devices (ibv_get_device_list failed: Invalid argument)");
        EXPECT_NE(weft::testing::soft_verbs_last_error().find("WEFT_TEST_SOFT_VERBS_DEVICES"),
                  std::string::npos);
      },
      options));
}

}  // namespace

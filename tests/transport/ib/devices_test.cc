// Finding verbs devices: on this host through the system's libibverbs (a reason when
// there are none, never a crash), and on fake devices installed in its place: ports
// listed with state, link layer, LID and GIDs; WEFT_IB_HCA's selection and exclusion;
// the GID chosen (RoCE v2 IPv4-mapped by default, WEFT_IB_GID_INDEX when set); devices
// that fail; each device's NUMA node; malformed variables refused naming the variable.
#include "transport/ib/devices.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/transport/ib/fake_verbs.h"
#include "weft/error.h"

namespace {

using weft::testing::FakeDevice;
using weft::testing::FakePort;
using weft::testing::FakeVerbs;
using weft::testing::ipv6_gid;
using weft::testing::roce_v2_ipv4;
using weft::transport::ib::HcaFilter;
using weft::transport::ib::probe_verbs_devices;
using weft::transport::ib::ProbeOptions;
using weft::transport::ib::VerbsReport;

// One ACTIVE Ethernet port whose GIDs are, as on a RoCE NIC with one IPv4 address:
// 0 fe80::1 RoCE v1, 1 fe80::1 RoCE v2, 2 ::ffff:10.0.0.1 RoCE v1, 3 the same RoCE v2.
FakePort roce_port() {
  FakePort port;
  port.gids = {ipv6_gid(IBV_GID_TYPE_ROCE_V1, 1), ipv6_gid(IBV_GID_TYPE_ROCE_V2, 1),
               roce_v2_ipv4(10, 0, 0, 1), roce_v2_ipv4(10, 0, 0, 1)};
  port.gids[2].type = IBV_GID_TYPE_ROCE_V1;
  return port;
}

FakePort infiniband_port(uint16_t lid) {
  FakePort port;
  port.link_layer = IBV_LINK_LAYER_INFINIBAND;
  port.lid = lid;
  port.gids = {ipv6_gid(IBV_GID_TYPE_ROCE_V1, 9)};  // the port GID, fe80::9
  return port;
}

TEST(Devices, SystemProbeListsDevicesOrSaysWhyThereAreNone) {
  const VerbsReport report = probe_verbs_devices();
  if (report.usable()) {
    EXPECT_FALSE(report.devices.empty());
    EXPECT_NE(report.summary().find(" port "), std::string::npos) << report.summary();
    return;
  }
  const bool no_library = report.why_none.rfind("libibverbs.so.1 not loadable: ", 0) == 0;
  const bool no_devices = report.why_none.rfind("no RDMA devices (", 0) == 0;
  const bool no_port = report.why_none.rfind("no usable RDMA port (", 0) == 0;
  EXPECT_TRUE(no_library || no_devices || no_port) << report.why_none;
  EXPECT_EQ(report.summary(), report.why_none);
}

TEST(Devices, ListsAFakeRoceDeviceAndPicksTheRoceV2Ipv4Gid) {
  FakeVerbs fake({{"fake_0", {roce_port()}}});
  const VerbsReport report = probe_verbs_devices(fake.api(), {});
  ASSERT_TRUE(report.usable()) << report.why_none;
  ASSERT_EQ(report.devices.size(), 1u);
  EXPECT_EQ(report.devices[0].name, "fake_0");
  EXPECT_EQ(report.devices[0].error, "");
  ASSERT_EQ(report.devices[0].ports.size(), 1u);
  const auto& port = report.devices[0].ports[0];
  EXPECT_EQ(port.port, 1);
  EXPECT_EQ(port.state, "ACTIVE");
  EXPECT_EQ(port.link_layer, "Ethernet");
  EXPECT_EQ(port.gid_table, 8);
  EXPECT_EQ(port.gid.populated, 4);
  EXPECT_EQ(port.gid.index, 3);
  EXPECT_EQ(port.gid.how, "RoCE v2, IPv4-mapped");
  EXPECT_EQ(report.summary(), "fake_0 port 1 (Ethernet, GID 3: RoCE v2, IPv4-mapped)");
  // Every device opened was closed, and the list freed.
  EXPECT_EQ(fake.open_contexts(), 0);
  EXPECT_EQ(fake.open_lists(), 0);
}

TEST(Devices, ProbeGoesThroughTheInstalledTable) {
  FakeVerbs fake({{"fake_0", {roce_port()}}});
  const VerbsReport report = probe_verbs_devices();
  EXPECT_EQ(report.summary(), "fake_0 port 1 (Ethernet, GID 3: RoCE v2, IPv4-mapped)");
}

TEST(Devices, WithoutAnIpv4GidTheFirstRoceV2OneServes) {
  FakePort port;
  port.gids = {ipv6_gid(IBV_GID_TYPE_ROCE_V1, 1), ipv6_gid(IBV_GID_TYPE_ROCE_V1, 2, false),
               ipv6_gid(IBV_GID_TYPE_ROCE_V2, 2, false)};
  FakeVerbs fake({{"fake_0", {port}}});
  const VerbsReport report = probe_verbs_devices(fake.api(), {});
  ASSERT_TRUE(report.usable()) << report.why_none;
  EXPECT_EQ(report.devices[0].ports[0].gid.index, 2);
  EXPECT_EQ(report.devices[0].ports[0].gid.how, "RoCE v2, IPv6");
}

TEST(Devices, RoceV1OnlyIsUnusableUntilAnIndexIsGiven) {
  FakePort port;
  port.gids = {ipv6_gid(IBV_GID_TYPE_ROCE_V1, 1), {}, roce_v2_ipv4(10, 0, 0, 1)};
  port.gids[2].type = IBV_GID_TYPE_ROCE_V1;
  FakeVerbs fake({{"fake_0", {port}}});
  const VerbsReport report = probe_verbs_devices(fake.api(), {});
  EXPECT_FALSE(report.usable());
  EXPECT_EQ(report.devices[0].ports[0].gid.populated, 2);  // index 1 is an empty slot
  EXPECT_EQ(report.why_none,
            "no usable RDMA port (fake_0 port 1: no RoCE v2 GID (WEFT_IB_GID_INDEX chooses "
            "another))");

  ProbeOptions forced;
  forced.gid_index = 2;
  const VerbsReport chosen = probe_verbs_devices(fake.api(), forced);
  ASSERT_TRUE(chosen.usable()) << chosen.why_none;
  EXPECT_EQ(chosen.summary(), "fake_0 port 1 (Ethernet, GID 2: WEFT_IB_GID_INDEX=2)");

  forced.gid_index = 1;
  EXPECT_EQ(probe_verbs_devices(fake.api(), forced).devices[0].ports[0].why_not,
            "WEFT_IB_GID_INDEX=1, but that GID is empty");
  forced.gid_index = 8;
  EXPECT_EQ(probe_verbs_devices(fake.api(), forced).devices[0].ports[0].why_not,
            "WEFT_IB_GID_INDEX=8, but the port's GID table has 8 entries");
}

TEST(Devices, InfinibandPortsNeedALid) {
  FakeVerbs fake({{"ib_0", {infiniband_port(7), infiniband_port(0)}}});
  const VerbsReport report = probe_verbs_devices(fake.api(), {});
  ASSERT_TRUE(report.usable()) << report.why_none;
  EXPECT_EQ(report.summary(), "ib_0 port 1 (InfiniBand, LID 7, GID 0: GID 0 (InfiniBand))");
  EXPECT_EQ(report.devices[0].ports[1].why_not, "no LID (is a subnet manager running?)");
}

TEST(Devices, HcaSelectsDevicesAndPorts) {
  FakePort down = roce_port();
  down.state = IBV_PORT_DOWN;
  FakeDevice broken{"rxe0", {roce_port()}, /*open_fails=*/true};
  FakeVerbs fake({{"mlx5_0", {roce_port(), roce_port()}}, {"mlx5_1", {down}}, broken});

  ProbeOptions options;
  options.hca = HcaFilter::parse("mlx5_0:2");
  VerbsReport report = probe_verbs_devices(fake.api(), options);
  EXPECT_EQ(report.summary(), "mlx5_0 port 2 (Ethernet, GID 3: RoCE v2, IPv4-mapped)");
  EXPECT_EQ(report.devices[0].ports[0].why_not, "not selected by WEFT_IB_HCA=mlx5_0:2");
  // Devices left out are not opened: rxe0 would fail.
  EXPECT_EQ(report.devices[1].error, "not selected by WEFT_IB_HCA=mlx5_0:2");
  EXPECT_EQ(report.devices[2].error, "not selected by WEFT_IB_HCA=mlx5_0:2");

  options.hca = HcaFilter::parse("^mlx5_0");
  report = probe_verbs_devices(fake.api(), options);
  EXPECT_FALSE(report.usable());
  EXPECT_EQ(report.why_none,
            "no usable RDMA port (device mlx5_0: excluded by WEFT_IB_HCA=^mlx5_0; mlx5_1 port 1: "
            "the port is DOWN; device rxe0: ibv_open_device failed: Permission denied)");
  EXPECT_EQ(fake.open_contexts(), 0);

  options.hca = HcaFilter::parse("^=mlx5_1");
  EXPECT_EQ(probe_verbs_devices(fake.api(), options).summary(),
            "mlx5_0 port 1 (Ethernet, GID 3: RoCE v2, IPv4-mapped), mlx5_0 port 2 (Ethernet, GID "
            "3: RoCE v2, IPv4-mapped)");
}

TEST(Devices, EachDeviceCarriesItsNumaNodeWhereKnown) {
  FakeDevice near{"mlx5_0", {roce_port()}};
  near.numa_node = 1;
  FakeVerbs fake({near, {"mlx5_1", {roce_port()}}});
  const VerbsReport report = probe_verbs_devices(fake.api(), {});
  EXPECT_EQ(report.devices[0].numa_node, 1);
  EXPECT_EQ(report.devices[1].numa_node, -1);
  EXPECT_EQ(report.summary(),
            "mlx5_0 port 1 (Ethernet, GID 3: RoCE v2, IPv4-mapped, NUMA node 1), mlx5_1 port 1 "
            "(Ethernet, GID 3: RoCE v2, IPv4-mapped)");
}

TEST(Devices, NoDevicesIsAReason) {
  FakeVerbs none({});
  EXPECT_EQ(probe_verbs_devices(none.api(), {}).why_none,
            "no RDMA devices (ibv_get_device_list returned 0 devices)");
  none.fail_device_list(ENOSYS);
  EXPECT_EQ(probe_verbs_devices(none.api(), {}).why_none,
            "no RDMA devices (ibv_get_device_list failed: Function not implemented; the kernel "
            "has no RDMA support)");
}

TEST(Devices, OptionsFromTheEnvironmentRefuseMalformedValues) {
  unsetenv("WEFT_IB_HCA");
  unsetenv("WEFT_IB_GID_INDEX");
  EXPECT_FALSE(ProbeOptions::from_env().gid_index);
  setenv("WEFT_IB_GID_INDEX", "3", 1);
  EXPECT_EQ(ProbeOptions::from_env().gid_index, 3);
  for (const char* bad : {"-1", "x", "256", "3x"}) {
    setenv("WEFT_IB_GID_INDEX", bad, 1);
    try {
      ProbeOptions::from_env();
      ADD_FAILURE() << "WEFT_IB_GID_INDEX=" << bad << " was accepted";
    } catch (const weft::InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()),
                "WEFT_IB_GID_INDEX=" + std::string(bad) + ": expected an integer in [0, 255]");
    }
  }
  unsetenv("WEFT_IB_GID_INDEX");
  setenv("WEFT_IB_HCA", "mlx5_0:", 1);
  try {
    ProbeOptions::from_env();
    ADD_FAILURE() << "WEFT_IB_HCA=mlx5_0: was accepted";
  } catch (const weft::InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("WEFT_IB_HCA=mlx5_0:: port '' of mlx5_0", 0), 0u)
        << e.what();
  }
  unsetenv("WEFT_IB_HCA");
}

}  // namespace

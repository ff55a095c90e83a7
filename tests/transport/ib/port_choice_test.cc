// The port a rank takes among the usable ones: those on its NUMA node first (a device of
// unknown node counts as near everyone, and every device does for a rank on no single
// node), then among those equally near the rail of its index on its host; the others
// after, in case the first fails to open; WEFT_IB_HCA narrowing the candidates before
// any of it. Made-up devices and nodes: the choice reads nothing else.
#include "transport/ib/port_choice.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/transport/ib/fake_verbs.h"

namespace {

using weft::testing::FakeDevice;
using weft::testing::FakePort;
using weft::testing::FakeVerbs;
using weft::testing::roce_v2_ipv4;
using weft::transport::ib::choose_port;
using weft::transport::ib::DeviceReport;
using weft::transport::ib::HcaFilter;
using weft::transport::ib::port_label;
using weft::transport::ib::PortChoice;
using weft::transport::ib::PortReport;
using weft::transport::ib::probe_verbs_devices;
using weft::transport::ib::ProbeOptions;
using weft::transport::ib::RankPlace;
using weft::transport::ib::VerbsReport;

// A report of one-port devices, "name@node" each ("mlx5_0@1"; node -1: unknown); a name
// ending in '!' has its port unusable.
VerbsReport report_of(const std::vector<std::pair<std::string, int>>& devices) {
  VerbsReport report;
  for (const auto& [name, node] : devices) {
    DeviceReport d;
    d.name = name;
    d.numa_node = node;
    PortReport p;
    p.port = 1;
    if (d.name.back() == '!') {
      d.name.pop_back();
      p.why_not = "the port is DOWN";
    }
    d.ports.push_back(p);
    report.devices.push_back(d);
  }
  return report;
}

// The ports in the order the rank would try them: "mlx5_1 mlx5_0".
std::string order(const VerbsReport& report, const PortChoice& choice) {
  std::string names;
  for (const auto& ref : choice.order) {
    names += (names.empty() ? "" : " ") + report.devices[ref.device].name;
  }
  return names;
}

std::string chosen(const VerbsReport& report, RankPlace rank) {
  const PortChoice choice = choose_port(report, rank);
  return choice.order.empty() ? "" : report.devices[choice.order.front().device].name;
}

TEST(PortChoice, ThePortOnTheRanksNumaNodeComesFirst) {
  const VerbsReport report = report_of({{"mlx5_0", 0}, {"mlx5_1", 1}});
  PortChoice choice = choose_port(report, {1, 0});
  EXPECT_EQ(order(report, choice), "mlx5_1 mlx5_0");
  EXPECT_EQ(choice.why, "1 of 2 usable ports is on this rank's NUMA node 1");
  choice = choose_port(report, {0, 5});  // one near port: the local index does not matter
  EXPECT_EQ(order(report, choice), "mlx5_0 mlx5_1");
  EXPECT_EQ(port_label(report, choice.order[0]), "mlx5_0:1 (NUMA node 0)");
}

TEST(PortChoice, ADeviceOfUnknownNodeIsNearEveryone) {
  const VerbsReport report = report_of({{"mlx5_0", 0}, {"mlx5_1", -1}});
  EXPECT_EQ(chosen(report, {1, 0}), "mlx5_1");
  EXPECT_EQ(port_label(report, choose_port(report, {1, 0}).order[0]),
            "mlx5_1:1 (NUMA node unknown)");
  // On node 0 both are near: the rails decide.
  const PortChoice choice = choose_port(report, {0, 1});
  EXPECT_EQ(order(report, choice), "mlx5_1 mlx5_0");
  EXPECT_EQ(choice.why,
            "2 of 2 usable ports are on this rank's NUMA node 0 or on no known node; local rank "
            "1 takes rail 1 mod 2 = 1 of them");
  // Nothing known about any device: every port is near every rank.
  const VerbsReport unknown = report_of({{"a", -1}, {"b", -1}, {"c", -1}});
  for (int local = 0; local < 6; ++local) {
    EXPECT_EQ(chosen(unknown, {1, local}), std::string(1, static_cast<char>('a' + local % 3)));
  }
}

TEST(PortChoice, ARankOnNoSingleNodeFindsEveryPortNear) {
  const VerbsReport report = report_of({{"n0a", 0}, {"n0b", 0}, {"n1a", 1}, {"n1b", 1}});
  const PortChoice choice = choose_port(report, {-1, 6});
  EXPECT_EQ(order(report, choice), "n1a n1b n0a n0b");
  EXPECT_EQ(choice.why,
            "this rank is on no single NUMA node, so all 4 usable ports are near; local rank 6 "
            "takes rail 6 mod 4 = 2 of them");
}

// Four ranks a node, two NICs a node: each rank of a node takes the next NIC of its node.
TEST(PortChoice, RanksOfAHostSpreadOverTheNearPortsByLocalIndex) {
  const VerbsReport report = report_of({{"n0a", 0}, {"n0b", 0}, {"n1a", 1}, {"n1b", 1}});
  const char* const node0[] = {"n0a", "n0b", "n0a", "n0b"};
  const char* const node1[] = {"n1a", "n1b", "n1a", "n1b"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(chosen(report, {0, i}), node0[i]) << "local rank " << i;
    EXPECT_EQ(chosen(report, {1, 4 + i}), node1[i]) << "local rank " << 4 + i;
  }
  // The rest follow, near ones first in rail order, in case the first will not open.
  EXPECT_EQ(order(report, choose_port(report, {1, 5})), "n1b n1a n0a n0b");
}

TEST(PortChoice, WithNoPortNearTheRanksSpreadOverAll) {
  const VerbsReport report = report_of({{"mlx5_0", 0}, {"mlx5_1", 1}});
  const PortChoice choice = choose_port(report, {2, 1});
  EXPECT_EQ(order(report, choice), "mlx5_1 mlx5_0");
  EXPECT_EQ(choice.why,
            "none of the 2 usable ports is on this rank's NUMA node 2; local rank 1 takes rail 1 "
            "mod 2 = 1 of them");
}

TEST(PortChoice, OnlyUsablePortsCount) {
  const VerbsReport report = report_of({{"mlx5_0!", 1}, {"mlx5_1", 0}, {"mlx5_2!", -1}});
  const PortChoice choice = choose_port(report, {1, 3});
  EXPECT_EQ(order(report, choice), "mlx5_1");
  EXPECT_EQ(choice.why, "the only usable port");
  EXPECT_TRUE(choose_port(report_of({{"mlx5_0!", 0}}), {0, 0}).order.empty());
  EXPECT_TRUE(choose_port(VerbsReport{}, {0, 0}).order.empty());
}

// Ports WEFT_IB_HCA leaves out are unusable in the probe's report, so they are never
// chosen, however near.
TEST(PortChoice, WeftIbHcaNarrowsTheCandidatesFirst) {
  auto device = [](const char* name, int node) {
    FakeDevice d{name, {FakePort{}}};
    d.ports[0].gids = {roce_v2_ipv4(10, 0, 0, 1)};
    d.ports[0].gids[0].type = IBV_GID_TYPE_ROCE_V2;
    d.numa_node = node;
    return d;
  };
  FakeVerbs fake({device("mlx5_0", 0), device("mlx5_1", 1), device("mlx5_2", 0)});
  auto with = [&](const std::string& hca) {
    ProbeOptions options;
    if (!hca.empty()) options.hca = HcaFilter::parse(hca);
    return probe_verbs_devices(fake.api(), options);
  };
  const VerbsReport all = with("");
  EXPECT_EQ(chosen(all, {0, 0}), "mlx5_0");
  EXPECT_EQ(chosen(all, {0, 1}), "mlx5_2");
  EXPECT_EQ(chosen(all, {1, 1}), "mlx5_1");

  const VerbsReport far_only = with("mlx5_1");  // far from node 0, but the only one allowed
  const PortChoice choice = choose_port(far_only, {0, 0});
  EXPECT_EQ(order(far_only, choice), "mlx5_1");
  EXPECT_EQ(choice.why, "the only usable port");

  const VerbsReport without_first = with("^mlx5_0");
  EXPECT_EQ(chosen(without_first, {0, 0}), "mlx5_2");
  EXPECT_EQ(chosen(without_first, {0, 1}), "mlx5_2");  // one near port: no rails
  EXPECT_EQ(order(without_first, choose_port(without_first, {0, 1})), "mlx5_2 mlx5_1");

  const VerbsReport two = with("=mlx5_0,mlx5_1");  // a rank on node 1 keeps its own
  EXPECT_EQ(chosen(two, {1, 0}), "mlx5_1");
  EXPECT_EQ(chosen(two, {-1, 1}), "mlx5_1");
}

}  // namespace

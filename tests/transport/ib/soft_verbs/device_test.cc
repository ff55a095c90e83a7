// The soft device as weft finds it: one RoCE device with one ACTIVE port and the GIDs
// weft chooses from, installed from the environment in every process of a test; its
// objects' life cycles (in use: EBUSY; unknown handles: EINVAL) and its completion
// channels.
#include <gtest/gtest.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "transport/ib/devices.h"

namespace {

using weft::testing::Endpoint;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::soft_verbs_api;
using weft::testing::soft_verbs_last_error;
using weft::testing::TestRoom;
using weft::transport::ib::VerbsApi;

TEST(SoftVerbsDevice, IsOneRoceDeviceWithOneActivePort) {
  const VerbsApi& api = soft_verbs_api();
  int count = 0;
  ibv_device** devices = api.get_device_list(&count);
  ASSERT_EQ(count, 1);
  EXPECT_STREQ(api.get_device_name(devices[0]), "softib0");
  EXPECT_EQ(devices[1], nullptr);
  ibv_context* context = api.open_device(devices[0]);
  api.free_device_list(devices);
  ASSERT_NE(context, nullptr) << soft_verbs_last_error();

  ibv_device_attr device{};
  ASSERT_EQ(api.query_device(context, &device), 0);
  EXPECT_EQ(device.phys_port_cnt, 1);
  EXPECT_GE(device.max_qp_wr, 1024);
  EXPECT_GE(device.max_sge, 4);
  EXPECT_GE(device.max_cqe, 4096);

  ibv_port_attr port{};
  ASSERT_EQ(api.query_port(context, 1, &port), 0);
  EXPECT_EQ(port.state, IBV_PORT_ACTIVE);
  EXPECT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET);
  EXPECT_EQ(port.active_mtu, IBV_MTU_4096);
  EXPECT_EQ(port.lid, 0);
  EXPECT_EQ(port.gid_tbl_len, 2);
  EXPECT_EQ(api.query_port(context, 2, &port), EINVAL);

  ibv_gid gid{};
  ibv_gid_type type{};
  ASSERT_EQ(api.query_gid(context, 1, 0, &gid), 0);
  EXPECT_EQ(gid.raw[0], 0xfe);
  EXPECT_EQ(gid.raw[1], 0x80);
  ASSERT_EQ(api.query_gid_type(context, 1, 0, &type), 0);
  EXPECT_EQ(type, IBV_GID_TYPE_ROCE_V1);
  ASSERT_EQ(api.query_gid(context, 1, 1, &gid), 0);
  const uint8_t loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
  EXPECT_EQ(std::memcmp(gid.raw, loopback, 16), 0);
  ASSERT_EQ(api.query_gid_type(context, 1, 1, &type), 0);
  EXPECT_EQ(type, IBV_GID_TYPE_ROCE_V2);
  EXPECT_EQ(api.query_gid(context, 1, 2, &gid), -1);
  EXPECT_EQ(api.query_gid_type(context, 1, 2, &type), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(api.close_device(context), 0);
}

TEST(SoftVerbsDevice, WeftFindsItAndChoosesTheRoceV2Ipv4Gid) {
  const auto report = weft::transport::ib::probe_verbs_devices(soft_verbs_api(), {});
  ASSERT_TRUE(report.usable()) << report.why_none;
  ASSERT_EQ(report.devices.size(), 1u);
  EXPECT_EQ(report.devices[0].name, "softib0");
  ASSERT_EQ(report.devices[0].ports.size(), 1u);
  EXPECT_EQ(report.devices[0].ports[0].gid.index, 1) << report.summary();
}

TEST(SoftVerbsDevice, EveryRankInstallsItFromTheEnvironment) {
  // This process was started without WEFT_TEST_SOFT_VERBS; its ranks get it.
  if (!weft::testing::is_rank_process()) {
    EXPECT_NE(weft::transport::ib::verbs_api(nullptr), &soft_verbs_api());
  }
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int) {
        EXPECT_EQ(weft::transport::ib::verbs_api(nullptr), &soft_verbs_api());
        EXPECT_EQ(weft::testing::soft_verbs_fabric_directory(), room.fabric());
        const auto report = weft::transport::ib::probe_verbs_devices();
        EXPECT_TRUE(report.usable()) << report.why_none;
        EXPECT_NE(report.summary().find("softib0 port 1"), std::string::npos) << report.summary();
      },
      room.rank_options()));
}

TEST(SoftVerbsDevice, RefusesToDestroyWhatIsStillInUse) {
  Endpoint end;
  const VerbsApi& api = end.api;
  EXPECT_EQ(api.dealloc_pd(end.pd), EBUSY);
  EXPECT_NE(soft_verbs_last_error().find("1 memory regions and 1 queue pairs"), std::string::npos)
      << soft_verbs_last_error();
  EXPECT_EQ(api.destroy_cq(end.cq), EBUSY);
  EXPECT_EQ(api.close_device(end.context), -1);
  EXPECT_EQ(errno, EBUSY);
}

TEST(SoftVerbsDevice, RefusesHandlesItNeverMadeOrDestroyed) {
  Endpoint end;
  const VerbsApi& api = end.api;
  ibv_qp_init_attr init{};
  init.qp_type = IBV_QPT_RC;
  init.send_cq = end.cq;
  init.recv_cq = end.cq;
  init.cap.max_send_wr = 1;
  ibv_qp* qp = api.create_qp(end.pd, &init);
  ASSERT_NE(qp, nullptr);
  ASSERT_EQ(api.destroy_qp(qp), 0);
  EXPECT_EQ(api.destroy_qp(qp), EINVAL);
  ibv_qp_attr attr = end.init_attributes();
  EXPECT_EQ(api.modify_qp(qp, &attr, weft::testing::kInitMask), EINVAL);
  EXPECT_NE(soft_verbs_last_error().find("unknown queue pair"), std::string::npos);
  ibv_cq bogus{};
  ibv_wc wc{};
  EXPECT_EQ(api.poll_cq(&bogus, 1, &wc), -1);
}

TEST(SoftVerbsDevice, CreatesReliableConnectedQueuePairsOnly) {
  Endpoint end;
  ibv_qp_init_attr init{};
  init.qp_type = IBV_QPT_UD;
  init.send_cq = end.cq;
  init.recv_cq = end.cq;
  init.cap.max_send_wr = 1;
  init.cap.max_recv_wr = 1;
  errno = 0;
  EXPECT_EQ(end.api.create_qp(end.pd, &init), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_NE(soft_verbs_last_error().find("IBV_QPT_RC"), std::string::npos);
}

TEST(SoftVerbsDevice, RegistersWithDistinctKeysAndChecksAccessFlags) {
  Endpoint end;
  EXPECT_NE(end.mr->lkey, end.mr->rkey);
  std::vector<uint8_t> memory(64);
  errno = 0;
  EXPECT_EQ(end.api.reg_mr(end.pd, memory.data(), memory.size(), IBV_ACCESS_REMOTE_WRITE), nullptr);
  EXPECT_EQ(errno, EINVAL);
  ibv_mr* read_only = end.api.reg_mr(end.pd, memory.data(), memory.size(), 0);
  ASSERT_NE(read_only, nullptr);
  EXPECT_NE(read_only->lkey, end.mr->lkey);
  EXPECT_EQ(end.api.dereg_mr(read_only), 0);
}

TEST(SoftVerbsDevice, CompletionChannelsNeverSignal) {
  Endpoint end;
  const VerbsApi& api = end.api;
  ibv_comp_channel* channel = api.create_comp_channel(end.context);
  ASSERT_NE(channel, nullptr);
  ibv_cq* cq = api.create_cq(end.context, 4, nullptr, channel, 0);
  ASSERT_NE(cq, nullptr);
  pollfd p{channel->fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  EXPECT_EQ(api.destroy_comp_channel(channel), EBUSY);
  EXPECT_EQ(api.destroy_cq(cq), 0);
  EXPECT_EQ(api.destroy_comp_channel(channel), 0);
}

}  // namespace

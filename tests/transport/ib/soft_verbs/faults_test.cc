// Injected faults, for tests of a transport to check that it notices: an RDMA WRITE
// that goes out with a wrong rkey, a send completion that is lost; armed by a call or
// by WEFT_TEST_SOFT_VERBS_FAULT, and refused when malformed.
#include <gtest/gtest.h>

#include <cerrno>

#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace {

using weft::testing::describe;
using weft::testing::Endpoint;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::set_soft_verbs_faults;
using weft::testing::soft_verbs_api;
using weft::testing::TestRoom;

// Faults armed by a test end with it.
class SoftVerbsFaults : public ::testing::Test {
 protected:
  void TearDown() override { set_soft_verbs_faults(""); }
};

// Three signaled RDMA WRITEs from a to b; their completions.
std::vector<ibv_wc> three_writes() {
  Endpoint a, b;
  a.connect(b.address());
  b.connect(a.address());
  const auto target = b.address();
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a.post_send(IBV_WR_RDMA_WRITE, i, 0, 8, target.addr, target.rkey), 0);
  }
  return a.poll(3);
}

TEST_F(SoftVerbsFaults, BadRkeyAfterTwoWritesSpoilsTheThird) {
  ASSERT_TRUE(set_soft_verbs_faults("bad_rkey_after:2"));
  const auto wcs = three_writes();
  ASSERT_EQ(wcs.size(), 3u);
  EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
  EXPECT_EQ(wcs[1].status, IBV_WC_SUCCESS) << describe(wcs[1]);
  EXPECT_EQ(wcs[2].status, IBV_WC_REM_ACCESS_ERR) << describe(wcs[2]);
  EXPECT_EQ(wcs[2].wr_id, 2u);
}

TEST_F(SoftVerbsFaults, DropCompletionAfterOneLosesTheSecond) {
  ASSERT_TRUE(set_soft_verbs_faults("drop_completion_after:1"));
  Endpoint a, b;
  a.connect(b.address());
  b.connect(a.address());
  for (uint64_t i = 0; i < 3; ++i) ASSERT_EQ(b.post_recv(i, 64 * i, 64), 0);
  for (uint64_t i = 0; i < 3; ++i) ASSERT_EQ(a.post_send(IBV_WR_SEND, i, 0, 16), 0);
  const auto sent = a.poll(3, std::chrono::milliseconds(50));
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].wr_id, 0u);
  EXPECT_EQ(sent[1].wr_id, 2u);
  EXPECT_EQ(b.poll(3).size(), 3u) << "the messages themselves arrive";
}

TEST_F(SoftVerbsFaults, MalformedSpecificationsAreRefused) {
  std::string why;
  EXPECT_FALSE(set_soft_verbs_faults("lose_everything:1", &why));
  EXPECT_NE(why.find("unknown fault 'lose_everything'"), std::string::npos) << why;
  EXPECT_FALSE(set_soft_verbs_faults("bad_rkey_after:two", &why));
  EXPECT_FALSE(set_soft_verbs_faults("bad_rkey_after", &why));
  EXPECT_TRUE(set_soft_verbs_faults("bad_rkey_after:0,drop_completion_after:5", &why));
}

TEST_F(SoftVerbsFaults, TheEnvironmentArmsThemInEveryRank) {
  const TestRoom room = TestRoom::for_current_test();
  auto options = room.rank_options();
  options.env["WEFT_TEST_SOFT_VERBS_FAULT"] = "bad_rkey_after:0";
  expect_all_succeeded(run_ranks(
      1,
      [&](int) {
        const auto wcs = three_writes();
        ASSERT_EQ(wcs.size(), 3u);
        EXPECT_EQ(wcs[0].status, IBV_WC_REM_ACCESS_ERR) << describe(wcs[0]);
        EXPECT_EQ(wcs[1].status, IBV_WC_WR_FLUSH_ERR) << describe(wcs[1]);
        EXPECT_EQ(wcs[2].status, IBV_WC_WR_FLUSH_ERR) << describe(wcs[2]);
      },
      options));
}

TEST_F(SoftVerbsFaults, AMalformedEnvironmentFailsOpenDevice) {
  const TestRoom room = TestRoom::for_current_test();
  auto options = room.rank_options();
  options.env["WEFT_TEST_SOFT_VERBS_FAULT"] = "drop_everything";
  expect_all_succeeded(run_ranks(
      1,
      [&](int) {
        const auto& api = soft_verbs_api();
        ibv_device** devices = api.get_device_list(nullptr);
        errno = 0;
        EXPECT_EQ(api.open_device(devices[0]), nullptr);
        EXPECT_EQ(errno, EINVAL);
        EXPECT_NE(weft::testing::soft_verbs_last_error().find("WEFT_TEST_SOFT_VERBS_FAULT"),
                  std::string::npos);
        api.free_device_list(devices);
      },
      options));
}

}  // namespace

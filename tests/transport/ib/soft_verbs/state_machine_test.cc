// The queue pair state machine, in one process with two queue pairs connected to each
// other: RESET -> INIT -> RTR -> RTS with exactly the attribute bits the kernel requires
// at each step, the checks RTR makes of its peer and address, what may be posted in
// which state, and ERR with its flushes.
#include <gtest/gtest.h>

#include <cerrno>

#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace {

using weft::testing::describe;
using weft::testing::Endpoint;
using weft::testing::kInitMask;
using weft::testing::kRtrMask;
using weft::testing::kRtsMask;
using weft::testing::soft_verbs_last_error;

bool last_error_mentions(const std::string& text) {
  return soft_verbs_last_error().find(text) != std::string::npos;
}

TEST(SoftVerbsStates, WalksFromResetToRts) {
  Endpoint a, b;
  EXPECT_EQ(a.qp->state, IBV_QPS_RESET);
  ASSERT_EQ(a.to_init(), 0);
  EXPECT_EQ(a.qp->state, IBV_QPS_INIT);
  ASSERT_EQ(a.to_rtr(b.address()), 0);
  EXPECT_EQ(a.qp->state, IBV_QPS_RTR);
  ASSERT_EQ(a.to_rts(), 0);
  EXPECT_EQ(a.qp->state, IBV_QPS_RTS);
}

TEST(SoftVerbsStates, RefusesTransitionsThatSkipOrReverse) {
  Endpoint a, b;
  errno = 0;
  EXPECT_EQ(a.to_rtr(b.address()), EINVAL);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_TRUE(last_error_mentions("RESET -> RTR")) << soft_verbs_last_error();
  EXPECT_EQ(a.to_rts(), EINVAL);
  ASSERT_EQ(a.to_init(), 0);
  EXPECT_EQ(a.to_rts(), EINVAL);
  ASSERT_EQ(a.to_rtr(b.address()), 0);
  EXPECT_EQ(a.to_rtr(b.address()), EINVAL);
  EXPECT_EQ(a.to_init(), EINVAL);
  ASSERT_EQ(a.to_rts(), 0);
  EXPECT_EQ(a.to_init(), EINVAL);
  EXPECT_EQ(a.qp->state, IBV_QPS_RTS);
}

TEST(SoftVerbsStates, RefusesEachMissingRequiredBit) {
  Endpoint a, b;
  for (int bit : {IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_ACCESS_FLAGS}) {
    EXPECT_EQ(a.modify(a.init_attributes(), kInitMask & ~bit), EINVAL) << bit;
  }
  EXPECT_TRUE(last_error_mentions("requires IBV_QP_ACCESS_FLAGS")) << soft_verbs_last_error();
  ASSERT_EQ(a.to_init(), 0);
  for (int bit : {IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_DEST_QPN, IBV_QP_RQ_PSN,
                  IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER}) {
    EXPECT_EQ(a.modify(a.rtr_attributes(b.address()), kRtrMask & ~bit), EINVAL) << bit;
    EXPECT_EQ(a.qp->state, IBV_QPS_INIT);
  }
  EXPECT_TRUE(last_error_mentions("INIT -> RTR requires IBV_QP_MIN_RNR_TIMER"))
      << soft_verbs_last_error();
  ASSERT_EQ(a.to_rtr(b.address()), 0);
  for (int bit : {IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY, IBV_QP_SQ_PSN,
                  IBV_QP_MAX_QP_RD_ATOMIC}) {
    EXPECT_EQ(a.modify(a.rts_attributes(), kRtsMask & ~bit), EINVAL) << bit;
    EXPECT_EQ(a.qp->state, IBV_QPS_RTR);
  }
  EXPECT_TRUE(last_error_mentions("RTR -> RTS requires IBV_QP_MAX_QP_RD_ATOMIC"))
      << soft_verbs_last_error();
}

TEST(SoftVerbsStates, RefusesBitsATransitionDoesNotTake) {
  Endpoint a, b;
  EXPECT_EQ(a.modify(a.init_attributes(), kInitMask | IBV_QP_SQ_PSN), EINVAL);
  EXPECT_TRUE(last_error_mentions("RESET -> INIT does not take IBV_QP_SQ_PSN"))
      << soft_verbs_last_error();
  ASSERT_EQ(a.to_init(), 0);
  EXPECT_EQ(a.modify(a.rtr_attributes(b.address()), kRtrMask | IBV_QP_TIMEOUT), EINVAL);
  ASSERT_EQ(a.to_rtr(b.address()), 0);
  EXPECT_EQ(a.modify(a.rts_attributes(), kRtsMask | IBV_QP_DEST_QPN), EINVAL);
  EXPECT_EQ(a.qp->state, IBV_QPS_RTR);
}

TEST(SoftVerbsStates, RtrChecksThePeerAndTheAddress) {
  Endpoint a, b;
  ASSERT_EQ(a.to_init(), 0);
  auto nobody = b.address();
  nobody.qpn = 0xfffffe;
  EXPECT_EQ(a.to_rtr(nobody), EINVAL);
  EXPECT_TRUE(last_error_mentions("is no queue pair of the fabric")) << soft_verbs_last_error();

  ibv_qp_attr no_grh = a.rtr_attributes(b.address());
  no_grh.ah_attr.is_global = 0;
  EXPECT_EQ(a.modify(no_grh, kRtrMask), EINVAL);
  EXPECT_TRUE(last_error_mentions("is_global")) << soft_verbs_last_error();

  ibv_qp_attr stranger = a.rtr_attributes(b.address());
  stranger.ah_attr.grh.dgid.raw[15] ^= 1;
  EXPECT_EQ(a.modify(stranger, kRtrMask), EINVAL);
  EXPECT_TRUE(last_error_mentions("no GID of the fabric")) << soft_verbs_last_error();

  ibv_qp_attr wide_mtu = a.rtr_attributes(b.address());
  wide_mtu.path_mtu = static_cast<ibv_mtu>(6);
  EXPECT_EQ(a.modify(wide_mtu, kRtrMask), EINVAL);
  EXPECT_EQ(a.qp->state, IBV_QPS_INIT);
  EXPECT_EQ(a.to_rtr(b.address()), 0);
}

TEST(SoftVerbsStates, ReceivesFromInitOnAndSendsOnlyInRts) {
  Endpoint a, b;
  errno = 0;
  EXPECT_EQ(a.post_recv(1, 0, 64), EINVAL);  // RESET
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(a.post_send(IBV_WR_SEND, 2, 0, 64), EINVAL);
  ASSERT_EQ(a.to_init(), 0);
  EXPECT_EQ(a.post_recv(1, 0, 64), 0);
  EXPECT_EQ(a.post_send(IBV_WR_SEND, 2, 0, 64), EINVAL);
  ASSERT_EQ(a.to_rtr(b.address()), 0);
  EXPECT_EQ(a.post_send(IBV_WR_SEND, 2, 0, 64), EINVAL);
  EXPECT_TRUE(last_error_mentions("sends only in RTS")) << soft_verbs_last_error();
  EXPECT_TRUE(a.poll_for(std::chrono::milliseconds(1)).empty());
}

TEST(SoftVerbsStates, ErrFlushesOutstandingAndNewRequests) {
  Endpoint a, b;
  a.connect(b.address());
  b.connect(a.address());
  ASSERT_EQ(a.post_recv(11, 0, 64), 0);
  ASSERT_EQ(a.post_recv(12, 64, 64), 0);
  ibv_qp_attr err{};
  err.qp_state = IBV_QPS_ERR;
  ASSERT_EQ(a.modify(err, IBV_QP_STATE), 0);
  EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
  ASSERT_EQ(a.post_send(IBV_WR_SEND, 13, 0, 8, 0, 0, 0, 0), 0);  // unsignaled: flushed anyway
  ASSERT_EQ(a.post_recv(14, 0, 64), 0);
  const auto flushed = a.poll(4);
  ASSERT_EQ(flushed.size(), 4u);
  for (const ibv_wc& wc : flushed) EXPECT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR) << describe(wc);
  EXPECT_EQ(flushed[0].wr_id, 13u);  // the send flushes at once, the receives at the poll
  EXPECT_EQ(flushed[1].wr_id, 11u);
  EXPECT_EQ(flushed[2].wr_id, 12u);
  EXPECT_EQ(flushed[3].wr_id, 14u);
  EXPECT_EQ(flushed[1].opcode, IBV_WC_RECV);

  EXPECT_EQ(a.to_rts(), EINVAL);
  ibv_qp_attr reset{};
  reset.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(a.modify(reset, IBV_QP_STATE), 0);
  EXPECT_EQ(a.to_init(), 0);
  EXPECT_TRUE(a.poll_for(std::chrono::milliseconds(1)).empty());
}

TEST(SoftVerbsStates, CurrentStateMustMatchWhenGiven) {
  Endpoint a, b;
  a.connect(b.address());
  ibv_qp_attr attr = a.rts_attributes();
  attr.cur_qp_state = IBV_QPS_RTR;
  EXPECT_EQ(a.modify(attr, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
  attr.cur_qp_state = IBV_QPS_RTS;
  EXPECT_EQ(a.modify(attr, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
}

}  // namespace

// Data between two processes, each with one queue pair connected to the other's:
// SEND into posted receives (in order, with byte_len, immediates and inline data), RDMA
// WRITE into the other process's registered buffer, WRITE_WITH_IMM consuming a receive,
// RDMA READ, and a SEND that waits for a receive posted late.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/harness/byte_pattern.h"
#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"

namespace {

using weft::testing::byte_pattern;
using weft::testing::connect_to_other_rank;
using weft::testing::describe;
using weft::testing::Endpoint;
using weft::testing::EndpointOptions;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::TestRoom;
using namespace std::chrono_literals;

// Copies byte_pattern(bytes, seed) into `end`'s buffer at `offset`.
void fill(Endpoint& end, size_t offset, size_t bytes, uint64_t seed) {
  const auto pattern = byte_pattern(bytes, seed);
  std::copy(pattern.begin(), pattern.end(), end.buffer.begin() + static_cast<long>(offset));
}

bool holds(const Endpoint& end, size_t offset, size_t bytes, uint64_t seed) {
  const auto pattern = byte_pattern(bytes, seed);
  return std::equal(pattern.begin(), pattern.end(), end.buffer.begin() + static_cast<long>(offset));
}

TEST(SoftVerbsTransfer, SendsLandInPostedReceivesInOrder) {
  const TestRoom room = TestRoom::for_current_test();
  const size_t lengths[] = {1, 700, 4000};
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.buffer_bytes = 3 * 4096;
        Endpoint me(options);
        const auto peer = connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          for (uint64_t i = 0; i < 3; ++i) ASSERT_EQ(me.post_recv(10 + i, 4096 * i, 4096), 0);
          room.put("posted", "");
          const auto wcs = me.poll(3);
          ASSERT_EQ(wcs.size(), 3u);
          for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(wcs[i].status, IBV_WC_SUCCESS) << describe(wcs[i]);
            EXPECT_EQ(wcs[i].wr_id, 10 + i);
            EXPECT_EQ(wcs[i].opcode, IBV_WC_RECV);
            EXPECT_EQ(wcs[i].byte_len, lengths[i]);
            EXPECT_EQ(wcs[i].qp_num, me.qp->qp_num);
            EXPECT_EQ(wcs[i].src_qp, peer.qpn);
            EXPECT_EQ(wcs[i].wc_flags & IBV_WC_WITH_IMM, 0u);
            EXPECT_TRUE(holds(me, 4096 * i, lengths[i], i)) << "message " << i;
          }
          room.put("received", "");
        } else {
          room.get("posted");
          for (uint64_t i = 0; i < 3; ++i) {
            fill(me, 4096 * i, lengths[i], i);
            ASSERT_EQ(me.post_send(IBV_WR_SEND, 20 + i, 4096 * i, lengths[i]), 0);
          }
          const auto wcs = me.poll(3);
          ASSERT_EQ(wcs.size(), 3u);
          for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(wcs[i].status, IBV_WC_SUCCESS) << describe(wcs[i]);
            EXPECT_EQ(wcs[i].wr_id, 20 + i);
            EXPECT_EQ(wcs[i].opcode, IBV_WC_SEND);
          }
          room.get("received");
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsTransfer, SendWithImmediateAndInlineData) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          ASSERT_EQ(me.post_recv(1, 0, 1024), 0);
          ASSERT_EQ(me.post_recv(2, 1024, 1024), 0);
          room.put("posted", "");
          const auto wcs = me.poll(2);
          ASSERT_EQ(wcs.size(), 2u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM);
          EXPECT_EQ(ntohl(wcs[0].imm_data), 0xabcd0123u);
          EXPECT_EQ(wcs[0].byte_len, 32u);
          EXPECT_TRUE(holds(me, 0, 32, 7));
          EXPECT_EQ(wcs[1].status, IBV_WC_SUCCESS) << describe(wcs[1]);
          EXPECT_EQ(wcs[1].wc_flags & IBV_WC_WITH_IMM, 0u);
          EXPECT_EQ(wcs[1].byte_len, 48u);
          EXPECT_TRUE(holds(me, 1024, 48, 8)) << "inline data is what the buffer held at post";
          room.put("received", "");
        } else {
          room.get("posted");
          fill(me, 0, 32, 7);
          ASSERT_EQ(me.post_send(IBV_WR_SEND_WITH_IMM, 1, 0, 32, 0, 0, htonl(0xabcd0123u)), 0);
          fill(me, 64, 48, 8);
          ASSERT_EQ(
              me.post_send(IBV_WR_SEND, 2, 64, 48, 0, 0, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE),
              0);
          fill(me, 64, 48, 9);  // the buffer is free again once an inline send is posted
          const auto wcs = me.poll(2);
          ASSERT_EQ(wcs.size(), 2u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[1].status, IBV_WC_SUCCESS) << describe(wcs[1]);
          room.get("received");
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsTransfer, RdmaWriteLandsInTheOtherProcessAndConsumesNoReceive) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        const auto peer = connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          ASSERT_EQ(me.post_recv(5, 0, 64), 0);
          room.get("written");
          EXPECT_TRUE(holds(me, 100, 1000, 3));
          for (size_t i = 0; i < me.buffer.size(); ++i) {
            if (i < 100 || i >= 1100) {
              ASSERT_EQ(me.buffer[i], 0) << "byte " << i;
            }
          }
          EXPECT_TRUE(me.poll_for(5ms).empty()) << "an RDMA WRITE consumed a receive";
          room.put("checked", "");
        } else {
          fill(me, 0, 1000, 3);
          ASSERT_EQ(me.post_send(IBV_WR_RDMA_WRITE, 9, 0, 1000, peer.addr + 100, peer.rkey), 0);
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].opcode, IBV_WC_RDMA_WRITE);
          EXPECT_EQ(wcs[0].wr_id, 9u);
          room.put("written", "");
          room.get("checked");
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsTransfer, WriteWithImmediateConsumesAReceive) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        const auto peer = connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          ASSERT_EQ(me.post_recv(77, 3000, 16), 0);
          room.put("posted", "");
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
          EXPECT_EQ(wcs[0].wr_id, 77u);
          EXPECT_EQ(wcs[0].byte_len, 512u);
          EXPECT_EQ(wcs[0].wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM);
          EXPECT_EQ(ntohl(wcs[0].imm_data), 42u);
          EXPECT_TRUE(holds(me, 0, 512, 4));
          EXPECT_EQ(me.buffer[3000], 0) << "the receive's own buffer was written";
          room.put("received", "");
        } else {
          room.get("posted");
          fill(me, 0, 512, 4);
          ASSERT_EQ(
              me.post_send(IBV_WR_RDMA_WRITE_WITH_IMM, 1, 0, 512, peer.addr, peer.rkey, htonl(42)),
              0);
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].opcode, IBV_WC_RDMA_WRITE);
          room.get("received");
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsTransfer, RdmaReadFetchesTheOtherProcessesMemory) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        if (rank == 1) fill(me, 0, 4096, 5);
        const auto peer = connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          room.get("read");
        } else {
          ASSERT_EQ(me.post_send(IBV_WR_RDMA_READ, 3, 1000, 2048, peer.addr + 256, peer.rkey), 0);
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].opcode, IBV_WC_RDMA_READ);
          EXPECT_EQ(wcs[0].byte_len, 2048u);
          const auto source = byte_pattern(4096, 5);
          EXPECT_TRUE(std::equal(source.begin() + 256, source.begin() + 256 + 2048,
                                 me.buffer.begin() + 1000));
          room.put("read", "");
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsTransfer, SendWaitsForAReceivePostedLateWhenRnrRetryIsInfinite) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.rnr_retry = 7;
        Endpoint me(options);
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          room.get("sent");
          std::this_thread::sleep_for(20ms);
          ASSERT_EQ(me.post_recv(1, 0, 64), 0);
          const auto wcs = me.poll(1);
          ASSERT_EQ(wcs.size(), 1u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_TRUE(holds(me, 0, 64, 6));
          room.put("received", "");
        } else {
          fill(me, 0, 64, 6);
          ASSERT_EQ(me.post_send(IBV_WR_SEND, 1, 0, 64), 0);
          // The RDMA WRITE behind the waiting SEND waits too: RC keeps order.
          ASSERT_EQ(me.post_send(IBV_WR_RDMA_WRITE, 2, 0, 0), 0);
          room.put("sent", "");
          EXPECT_TRUE(me.poll_for(10ms).empty()) << "a SEND completed with no receive posted";
          const auto wcs = me.poll(2);
          ASSERT_EQ(wcs.size(), 2u);
          EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].wr_id, 1u);
          EXPECT_EQ(wcs[1].wr_id, 2u);
          room.get("received");
        }
      },
      room.rank_options()));
}

}  // namespace

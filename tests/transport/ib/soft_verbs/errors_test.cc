// Protocol mistakes and failures, each ending as an adapter would end it: the
// completion status, the queue pairs in ERR and their flushes, and nothing written
// where it must not be. Across two processes where the peer matters, in one process
// (two queue pairs connected to each other) where it does not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>

#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace {

using weft::testing::connect_to_other_rank;
using weft::testing::describe;
using weft::testing::Endpoint;
using weft::testing::EndpointOptions;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::soft_verbs_last_error;
using weft::testing::TestRoom;
using namespace std::chrono_literals;

bool all_zero(const std::vector<uint8_t>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// Rank 0 issues one request that must fail with `status` and leave its queue pair in
// ERR; rank 1 posts two receives first and then sees both flushed when `peer_errs`
// (the remote access errors), or still posted when not.
void expect_remote_failure(
    const TestRoom& room, int rank, Endpoint& me, ibv_wc_status status,
    const std::function<int(Endpoint&, const weft::testing::EndpointAddress&)>& post,
    bool peer_errs) {
  const auto peer = connect_to_other_rank(room, rank, me);
  if (rank == 1) {
    ASSERT_EQ(me.post_recv(1, 0, 64), 0);
    ASSERT_EQ(me.post_recv(2, 64, 64), 0);
    room.put("posted", "");
    room.get("failed");
    if (peer_errs) {
      const auto wcs = me.poll(2);
      ASSERT_EQ(wcs.size(), 2u);
      EXPECT_EQ(wcs[0].status, IBV_WC_WR_FLUSH_ERR) << describe(wcs[0]);
      EXPECT_EQ(wcs[1].status, IBV_WC_WR_FLUSH_ERR) << describe(wcs[1]);
      EXPECT_EQ(me.qp->state, IBV_QPS_ERR);
    } else {
      EXPECT_TRUE(me.poll_for(5ms).empty());
      EXPECT_EQ(me.qp->state, IBV_QPS_RTS);
    }
    EXPECT_TRUE(all_zero(me.buffer)) << "the failed request wrote into the peer";
    room.put("checked", "");
    return;
  }
  room.get("posted");
  ASSERT_EQ(post(me, peer), 0);
  const auto wcs = me.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, status) << describe(wcs[0]) << "; " << soft_verbs_last_error();
  EXPECT_EQ(me.qp->state, IBV_QPS_ERR);
  // Later requests flush, signaled or not.
  ASSERT_EQ(me.post_send(IBV_WR_SEND, 99, 0, 8, 0, 0, 0, 0), 0);
  const auto flushed = me.poll(1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].status, IBV_WC_WR_FLUSH_ERR) << describe(flushed[0]);
  EXPECT_EQ(flushed[0].wr_id, 99u);
  room.put("failed", "");
  room.get("checked");
}

TEST(SoftVerbsErrors, WrongRkeyIsARemoteAccessErrorOnBothSides) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        expect_remote_failure(
            room, rank, me, IBV_WC_REM_ACCESS_ERR,
            [](Endpoint& e, const auto& peer) {
              return e.post_send(IBV_WR_RDMA_WRITE, 1, 0, 64, peer.addr, peer.rkey + 1);
            },
            true);
        if (rank == 0) {
          EXPECT_NE(soft_verbs_last_error().find("names no memory region"), std::string::npos);
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, WriteOutOfBoundsIsRefusedWithoutWritingAByte) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        expect_remote_failure(
            room, rank, me, IBV_WC_REM_ACCESS_ERR,
            [](Endpoint& e, const auto& peer) {
              // Straddles the end of the peer's 4096-byte region.
              return e.post_send(IBV_WR_RDMA_WRITE, 1, 0, 64, peer.addr + 4096 - 32, peer.rkey);
            },
            true);
        if (rank == 0) {
          EXPECT_NE(soft_verbs_last_error().find("is outside the region"), std::string::npos)
              << soft_verbs_last_error();
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, WriteIntoARegionWithoutRemoteWriteIsRefused) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.buffer_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
        Endpoint me(options);
        expect_remote_failure(
            room, rank, me, IBV_WC_REM_ACCESS_ERR,
            [](Endpoint& e, const auto& peer) {
              return e.post_send(IBV_WR_RDMA_WRITE, 1, 0, 64, peer.addr, peer.rkey);
            },
            true);
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, ReadFromAQueuePairWithoutRemoteReadIsRefused) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.qp_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
        Endpoint me(options);
        expect_remote_failure(
            room, rank, me, IBV_WC_REM_ACCESS_ERR,
            [](Endpoint& e, const auto& peer) {
              return e.post_send(IBV_WR_RDMA_READ, 1, 0, 64, peer.addr, peer.rkey);
            },
            true);
        if (rank == 0) {
          EXPECT_NE(soft_verbs_last_error().find("qp_access_flags"), std::string::npos)
              << soft_verbs_last_error();
        }
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, SendWithNoReceivePostedRunsOutOfRnrRetries) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        EndpointOptions options;
        options.rnr_retry = 2;  // 2 x the peer's 0.64 ms
        Endpoint me(options);
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          room.put("ready", "");
          room.get("failed");
          EXPECT_TRUE(me.poll_for(5ms).empty());
          EXPECT_EQ(me.qp->state, IBV_QPS_RTS) << "RNR must not hurt the receiver";
          room.put("checked", "");
          return;
        }
        room.get("ready");
        const auto start = std::chrono::steady_clock::now();
        ASSERT_EQ(me.post_send(IBV_WR_SEND, 4, 0, 64), 0);
        const auto wcs = me.poll(1);
        ASSERT_EQ(wcs.size(), 1u);
        EXPECT_EQ(wcs[0].status, IBV_WC_RNR_RETRY_EXC_ERR) << describe(wcs[0]);
        EXPECT_GE(std::chrono::steady_clock::now() - start, 1ms) << "no retries were made";
        EXPECT_EQ(me.qp->state, IBV_QPS_ERR);
        room.put("failed", "");
        room.get("checked");
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, MessageLargerThanTheReceiveIsALengthError) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          ASSERT_EQ(me.post_recv(1, 0, 16), 0);
          ASSERT_EQ(me.post_recv(2, 16, 4000), 0);
          room.put("posted", "");
          const auto wcs = me.poll(2);
          ASSERT_EQ(wcs.size(), 2u);
          EXPECT_EQ(wcs[0].status, IBV_WC_LOC_LEN_ERR) << describe(wcs[0]);
          EXPECT_EQ(wcs[0].wr_id, 1u);
          EXPECT_EQ(wcs[1].status, IBV_WC_WR_FLUSH_ERR) << describe(wcs[1]);
          EXPECT_EQ(me.qp->state, IBV_QPS_ERR);
          EXPECT_TRUE(all_zero(me.buffer));
          room.put("checked", "");
          return;
        }
        room.get("posted");
        ASSERT_EQ(me.post_send(IBV_WR_SEND, 1, 0, 64), 0);
        const auto wcs = me.poll(1);
        ASSERT_EQ(wcs.size(), 1u);
        EXPECT_EQ(wcs[0].status, IBV_WC_REM_INV_REQ_ERR) << describe(wcs[0]);
        EXPECT_EQ(me.qp->state, IBV_QPS_ERR);
        room.get("checked");
      },
      room.rank_options()));
}

// Whether process `pid` has exited (a zombie its parent has not reaped yet counts).
bool exited(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::stringstream text;
  text << in.rdbuf();
  const std::string stat = text.str();
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         (stat[paren + 2] == 'Z' || stat[paren + 2] == 'X');
}

TEST(SoftVerbsErrors, PeerWhoseProcessDiedIsARetryError) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        connect_to_other_rank(room, rank, me);
        if (rank == 1) {
          room.put("pid", std::to_string(getpid()));
          room.get("connected");
          _exit(0);  // dies holding its queue pair, as a crashed process would
        }
        room.put("connected", "");
        const pid_t peer_pid = std::stoi(room.get("pid"));
        const auto give_up = std::chrono::steady_clock::now() + 10s;
        while (!exited(peer_pid) && std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(1ms);
        }
        ASSERT_TRUE(exited(peer_pid));
        ASSERT_EQ(me.post_send(IBV_WR_SEND, 1, 0, 8), 0);
        const auto wcs = me.poll(1);
        ASSERT_EQ(wcs.size(), 1u);
        EXPECT_EQ(wcs[0].status, IBV_WC_RETRY_EXC_ERR) << describe(wcs[0]);
        EXPECT_NE(soft_verbs_last_error().find("has exited"), std::string::npos)
            << soft_verbs_last_error();
      },
      room.rank_options()));
}

TEST(SoftVerbsErrors, PeerThatDestroyedItsQueuePairIsARetryError) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        auto me = std::make_unique<Endpoint>();
        connect_to_other_rank(room, rank, *me);
        if (rank == 1) {
          room.get("connected");
          me.reset();
          room.put("destroyed", "");
          return;
        }
        room.put("connected", "");
        room.get("destroyed");
        ASSERT_EQ(me->post_send(IBV_WR_RDMA_WRITE, 1, 0, 0), 0);
        const auto wcs = me->poll(1);
        ASSERT_EQ(wcs.size(), 1u);
        EXPECT_EQ(wcs[0].status, IBV_WC_RETRY_EXC_ERR) << describe(wcs[0]);
      },
      room.rank_options()));
}

// In one process from here on: a and b connected to each other.
struct Pair {
  explicit Pair(const EndpointOptions& a_options = {}, const EndpointOptions& b_options = {})
      : a(a_options), b(b_options) {
    a.connect(b.address());
    b.connect(a.address());
  }
  Endpoint a, b;
};

TEST(SoftVerbsErrors, BadLkeyIsALocalProtectionError) {
  Pair pair;
  ibv_sge sge{reinterpret_cast<uint64_t>(pair.a.buffer.data()), 16, pair.a.mr->lkey + 1};
  ibv_send_wr wr{};
  wr.wr_id = 5;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;  // unsignaled: an error completes all the same
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(pair.a.api.post_send(pair.a.qp, &wr, &bad), 0);
  const auto wcs = pair.a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_LOC_PROT_ERR) << describe(wcs[0]);
  EXPECT_EQ(wcs[0].wr_id, 5u);
  EXPECT_EQ(pair.a.qp->state, IBV_QPS_ERR);

  // A receive outside its region: the same, on the receive queue.
  ASSERT_EQ(pair.b.post_recv(6, 4096 - 8, 16), 0);
  const auto receive = pair.b.poll(1);
  ASSERT_EQ(receive.size(), 1u);
  EXPECT_EQ(receive[0].status, IBV_WC_LOC_PROT_ERR) << describe(receive[0]);
  EXPECT_EQ(pair.b.qp->state, IBV_QPS_ERR);
}

TEST(SoftVerbsErrors, ReceiveIntoMemoryWithoutLocalWriteIsRefused) {
  EndpointOptions read_only;
  read_only.buffer_access = 0;
  Endpoint a(read_only), b;
  ASSERT_EQ(a.to_init(), 0);
  ASSERT_EQ(a.post_recv(1, 0, 64), 0);
  const auto wcs = a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_LOC_PROT_ERR) << describe(wcs[0]);
  EXPECT_NE(soft_verbs_last_error().find("IBV_ACCESS_LOCAL_WRITE"), std::string::npos);
}

TEST(SoftVerbsErrors, DeregisteredRegionRefusesRemoteWrites) {
  Pair pair;
  const auto target = pair.b.address();
  ASSERT_EQ(pair.b.api.dereg_mr(pair.b.mr), 0);
  pair.b.mr = nullptr;
  ASSERT_EQ(pair.a.post_send(IBV_WR_RDMA_WRITE, 1, 0, 64, target.addr, target.rkey), 0);
  const auto wcs = pair.a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_REM_ACCESS_ERR) << describe(wcs[0]);
  EXPECT_TRUE(all_zero(pair.b.buffer));
}

TEST(SoftVerbsErrors, FullSendQueueRefusesPostsUntilACompletionIsPolled) {
  EndpointOptions small;
  small.max_send_wr = 4;
  Pair pair(small);
  const auto target = pair.b.address();
  for (uint64_t i = 0; i < 4; ++i) {
    const unsigned flags = i == 3 ? IBV_SEND_SIGNALED : 0;
    ASSERT_EQ(pair.a.post_send(IBV_WR_RDMA_WRITE, i, 0, 8, target.addr, target.rkey, 0, flags), 0);
  }
  EXPECT_EQ(pair.a.post_send(IBV_WR_RDMA_WRITE, 4, 0, 8, target.addr, target.rkey), ENOMEM);
  const auto wcs = pair.a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].wr_id, 3u);
  // The signaled completion frees its slot and those of the unsignaled requests before it.
  for (uint64_t i = 4; i < 8; ++i) {
    EXPECT_EQ(pair.a.post_send(IBV_WR_RDMA_WRITE, i, 0, 8, target.addr, target.rkey, 0, 0), 0);
  }
}

TEST(SoftVerbsErrors, CompletionQueueOverrunIsReported) {
  EndpointOptions tiny;
  tiny.cqe = 2;
  Pair pair(tiny);
  const auto target = pair.b.address();
  for (uint64_t i = 0; i < 3; ++i) {
    ASSERT_EQ(pair.a.post_send(IBV_WR_RDMA_WRITE, i, 0, 8, target.addr, target.rkey), 0);
  }
  ibv_wc wc[4];
  errno = 0;
  EXPECT_EQ(pair.a.api.poll_cq(pair.a.cq, 4, wc), -1);
  EXPECT_EQ(errno, EOVERFLOW);
  EXPECT_NE(soft_verbs_last_error().find("overrun"), std::string::npos);
}

TEST(SoftVerbsErrors, PsnMismatchIsARetryError) {
  Endpoint a, b;
  a.connect(b.address());
  auto a_address = a.address();
  a_address.psn += 1;  // b expects a PSN a will not send
  b.connect(a_address);
  ASSERT_EQ(a.post_send(IBV_WR_RDMA_WRITE, 1, 0, 0), 0);
  const auto wcs = a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_RETRY_EXC_ERR) << describe(wcs[0]);
  EXPECT_NE(soft_verbs_last_error().find("out of sequence"), std::string::npos);
}

TEST(SoftVerbsErrors, PeerThatNeverReachesRtrIsARetryError) {
  EndpointOptions impatient;
  impatient.timeout = 1;  // 8.192 us a try
  impatient.retry_cnt = 1;
  Endpoint a(impatient), b;
  ASSERT_EQ(b.to_init(), 0);
  a.connect(b.address());
  ASSERT_EQ(a.post_send(IBV_WR_RDMA_WRITE, 1, 0, 0), 0);
  const auto wcs = a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_RETRY_EXC_ERR) << describe(wcs[0]);
  EXPECT_NE(soft_verbs_last_error().find("did not reach RTR"), std::string::npos);
}

TEST(SoftVerbsErrors, PeerThatReachesRtrInTimeIsWaitedFor) {
  Endpoint a, b;
  a.connect(b.address());
  EXPECT_EQ(b.post_recv(1, 0, 64), EINVAL);  // b is still in RESET
  ASSERT_EQ(a.post_send(IBV_WR_SEND, 1, 0, 64), 0);
  EXPECT_TRUE(a.poll_for(2ms).empty());
  b.connect(a.address());
  ASSERT_EQ(b.post_recv(2, 0, 64), 0);
  const auto wcs = a.poll(1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS) << describe(wcs[0]);
  const auto received = b.poll(1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].wr_id, 2u);
}

}  // namespace

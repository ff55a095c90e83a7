// Failures between real processes: bad buffers, timeouts, dead and departed peers.
// Each must give a clear error on the rank that sees it, corrupt nothing, and leave the
// rest of the job working.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "tests/harness/peer_signals.h"
#include "weft/weft.h"

namespace {

using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::signal_peer;
using weft::testing::wait_for_peer;
using namespace std::chrono_literals;

TEST(Failures, ReceiveBufferTooSmallFailsCleanlyAndCorruptsNothing) {
  // 4 KiB goes eagerly, 1 MiB by rendezvous: both must be refused without a byte
  // written, and the link must stay usable.
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    for (size_t bytes : {size_t{4096}, size_t{1} << 20}) {
      if (rank == 0) {
        std::vector<uint8_t> data(bytes, 0x5A);
        weft::send(weft::view(data), 1, 3);
      } else {
        // A buffer of bytes/4 inside guard zones.
        std::vector<uint8_t> memory(bytes, 0xC3);
        weft::Tensor small(memory.data() + bytes / 4, bytes / 4, weft::DType::kUInt8);
        try {
          weft::recv(small, 0, 3);
          ADD_FAILURE() << "a " << bytes << "-byte message fit a " << bytes / 4 << "-byte buffer";
        } catch (const weft::InvalidArgument& e) {
          std::string what = e.what();
          EXPECT_NE(what.find("recv by rank 1 from rank 0"), std::string::npos) << what;
          EXPECT_NE(what.find(std::to_string(bytes) + " bytes"), std::string::npos) << what;
          EXPECT_NE(what.find("nothing was written"), std::string::npos) << what;
        }
        for (uint8_t b : memory) ASSERT_EQ(b, 0xC3) << "the refused message was written";
      }
      // The link still works in both directions.
      int64_t x = rank == 0 ? 41 : 0;
      if (rank == 0) weft::send(weft::view(std::span(&x, 1)), 1, 4);
      if (rank == 1) {
        weft::recv(weft::view(std::span(&x, 1)), 0, 4);
        EXPECT_EQ(x, 41);
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, DtypeMismatchIsRefused) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<float> f(16, 1.0f);
    std::vector<int32_t> i(16);
    if (rank == 0) {
      weft::send(weft::view(f), 1);
    } else {
      try {
        weft::recv(weft::view(i), 0);
        ADD_FAILURE() << "float32 data went into an int32 buffer";
      } catch (const weft::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("sent float32 data but the receive buffer is int32"),
                  std::string::npos)
            << e.what();
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, ReceiveWithNoSenderTimesOutAndLeavesNoTrace) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      int32_t stale = -7;
      auto start = std::chrono::steady_clock::now();
      try {
        weft::recv(weft::view(std::span(&stale, 1)), 1, 9, weft::Group(), 300ms);
        ADD_FAILURE() << "recv returned without a sender";
      } catch (const weft::TimeoutError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("recv by rank 0 from rank 1 (tag 9"), std::string::npos) << what;
        EXPECT_NE(what.find("no matching message has arrived"), std::string::npos) << what;
      }
      EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
      signal_peer(1, 1);
      // The timed-out receive is gone: the message sent now goes to this new one, and
      // the old buffer is never written.
      int32_t fresh = 0;
      weft::recv(weft::view(std::span(&fresh, 1)), 1, 9);
      EXPECT_EQ(fresh, 99);
      EXPECT_EQ(stale, -7);
    } else {
      wait_for_peer(0, 1);
      int32_t value = 99;
      weft::send(weft::view(std::span(&value, 1)), 0, 9);
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, ATimedOutReceiveNamesTheRankItWaitedFor) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    if (rank == 0) {
      int32_t value = 0;
      try {
        weft::recv(weft::view(std::span(&value, 1)), 1, 5, weft::Group(), 200ms);
        ADD_FAILURE() << "received a message nobody sent";
      } catch (const weft::TimeoutError& e) {
        EXPECT_NE(std::string(e.what()).find("; waiting for rank 1 ("), std::string::npos)
            << e.what();
      }
      signal_peer(1, 1);
    } else {
      wait_for_peer(0, 1);
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, LargeSendWithNoReceiverTimesOutAndIsWithdrawn) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<uint8_t> big(2 << 20, 0x11);
    if (rank == 0) {
      EXPECT_THROW(weft::send(weft::view(big), 1, 2, weft::Group(), 200ms), weft::TimeoutError);
      signal_peer(1, 1);
      std::fill(big.begin(), big.end(), 0x22);
      weft::send(weft::view(big), 1, 3);
    } else {
      wait_for_peer(0, 1);
      // The withdrawn message is still matched by this receive, which learns that it
      // was withdrawn instead of waiting forever; the next message is unaffected.
      try {
        weft::recv(weft::view(big), 0, 2);
        ADD_FAILURE() << "received a withdrawn message";
      } catch (const weft::PeerError& e) {
        EXPECT_NE(std::string(e.what()).find("withdrew the message"), std::string::npos)
            << e.what();
      }
      weft::recv(weft::view(big), 0, 3);
      EXPECT_EQ(big.front(), 0x22);
      EXPECT_EQ(big.back(), 0x22);
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, PeerKilledMidTransferGivesPeerErrorNamingIt) {
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    // Large enough to take tens of milliseconds even single-copy through shared
    // memory, so that the kill lands while the payload is moving.
    std::vector<uint8_t> big(512u << 20);
    if (rank == 1) {
      wait_for_peer(0, 1);
      weft::Request r = weft::isend(weft::view(big), 0, 0);
      std::this_thread::sleep_for(2ms);
      raise(SIGKILL);
    }
    if (rank == 0) {
      weft::Request r = weft::irecv(weft::view(big), 1, 0);
      signal_peer(1, 1);
      try {
        r.wait(60s);
        ADD_FAILURE() << "a 512 MiB transfer finished although its sender was killed";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 1);
        EXPECT_NE(std::string(e.what()).find("rank 1 ("), std::string::npos) << e.what();
      }
      // Later operations with the dead rank fail at once; the others still work.
      EXPECT_THROW(weft::send(weft::view(big), 1), weft::PeerError);
      signal_peer(2, 2);
    }
    if (rank == 2) wait_for_peer(0, 2);
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[1].signal, SIGKILL);
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[2].exit_code, 0) << ranks[2].output;
}

TEST(Failures, AnySourceReceiveFailsWhenAPeerCrashes) {
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    int32_t x = 0;
    if (rank == 0) {
      weft::Request r = weft::irecv(weft::view(std::span(&x, 1)), weft::kAnySource, 0);
      signal_peer(2, 1);
      try {
        r.wait(60s);
        ADD_FAILURE() << "an any-source receive outlived a crashed member";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2);
      }
      signal_peer(1, 2);
    }
    if (rank == 1) wait_for_peer(0, 2);
    if (rank == 2) {
      wait_for_peer(0, 1);
      raise(SIGKILL);
    }
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[2].signal, SIGKILL);
}

TEST(Failures, BlockingReceiveTimingOutMidTransferLeavesItsBufferAlone) {
  // The blocking receive matches a large message, then times out while the payload is
  // still moving: it is withdrawn before the call returns, the rest of the payload is
  // discarded, and the next messages arrive as usual.
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<uint8_t> big(512u << 20, 0x11);
    if (rank == 1) {
      weft::send(weft::view(big), 0, 1);  // completes: the receiver discards the rest
      int32_t value = 42;
      weft::send(weft::view(std::span(&value, 1)), 0, 2);
    } else {
      weft::probe(1, 1);  // the announcement is here: the receive matches it at once
      bool timed_out = false;
      try {
        weft::recv(weft::view(big), 1, 1, weft::Group(), 1ms);
      } catch (const weft::TimeoutError& e) {
        timed_out = true;
        EXPECT_NE(std::string(e.what()).find("recv by rank 0 from rank 1"), std::string::npos)
            << e.what();
      }
      // 512 MiB in a millisecond would be a surprise, but not an error.
      if (timed_out) {
        std::fill(big.begin(), big.end(), 0x33);
        int32_t value = 0;
        EXPECT_EQ(weft::recv(weft::view(std::span(&value, 1)), 1, 2), 1);
        EXPECT_EQ(value, 42);
        std::this_thread::sleep_for(100ms);
        EXPECT_EQ(std::count(big.begin(), big.end(), 0x33), static_cast<long>(big.size()));
      } else {
        int32_t value = 0;
        weft::recv(weft::view(std::span(&value, 1)), 1, 2);
      }
    }
    weft::destroy_process_group();
  }));
}

TEST(Failures, BlockingReceiveFromAPeerKilledMidTransferFailsNamingIt) {
  auto ranks = run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<uint8_t> big(512u << 20);
    if (rank == 1) {
      wait_for_peer(0, 1);
      weft::Request r = weft::isend(weft::view(big), 0, 0);
      std::this_thread::sleep_for(2ms);
      raise(SIGKILL);
    }
    signal_peer(1, 1);
    try {
      weft::recv(weft::view(big), 1, 0, weft::Group(), 60s);
      ADD_FAILURE() << "a 512 MiB transfer finished although its sender was killed";
    } catch (const weft::PeerError& e) {
      EXPECT_EQ(e.peer(), 1);
      EXPECT_NE(std::string(e.what()).find("rank 1 ("), std::string::npos) << e.what();
    }
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[1].signal, SIGKILL);
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
}

TEST(Failures, PendingReceiveFromDepartedPeerFails) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int32_t x = 0;
    if (rank == 0) {
      weft::Request r = weft::irecv(weft::view(std::span(&x, 1)), 1, 0);
      signal_peer(1, 1);
      try {
        r.wait(60s);
        ADD_FAILURE() << "received from a rank that left without sending";
      } catch (const weft::PeerError& e) {
        EXPECT_NE(std::string(e.what()).find("has left the job"), std::string::npos) << e.what();
      }
    } else {
      wait_for_peer(0, 1);
    }
    weft::destroy_process_group();
  }));
}

// Rank 2 crashes; rank 1 sees it and leaves; rank 0, which waits only on rank 1, must
// blame rank 2 (the root cause, passed on in rank 1's goodbye), not rank 1.
TEST(Failures, AFailureSeenThroughALeavingPeerNamesTheRootCause) {
  auto ranks = run_ranks(3, [](int rank) {
    weft::init_process_group();
    int32_t x = 0;
    if (rank == 0) {
      try {
        weft::recv(weft::view(std::span(&x, 1)), 1, 0, weft::Group(), 60s);
        ADD_FAILURE() << "received from a rank that left without sending";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2) << e.what();
        EXPECT_NE(std::string(e.what()).find("has left the job after it lost rank 2"),
                  std::string::npos)
            << e.what();
      }
    }
    if (rank == 1) {
      try {
        weft::recv(weft::view(std::span(&x, 1)), 2, 0, weft::Group(), 60s);
        ADD_FAILURE() << "received from a killed rank";
      } catch (const weft::PeerError& e) {
        EXPECT_EQ(e.peer(), 2) << e.what();
      }
    }
    if (rank == 2) raise(SIGKILL);
    weft::destroy_process_group();
  });
  EXPECT_EQ(ranks[0].exit_code, 0) << ranks[0].output;
  EXPECT_EQ(ranks[1].exit_code, 0) << ranks[1].output;
  EXPECT_EQ(ranks[2].signal, SIGKILL);
}

TEST(Failures, MessagesSentBeforeLeavingAreStillDelivered) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<int32_t> v(1000);
    if (rank == 1) {
      std::iota(v.begin(), v.end(), 0);
      weft::send(weft::view(v), 0);
      weft::destroy_process_group();
      return;
    }
    std::this_thread::sleep_for(200ms);  // rank 1 is gone by now
    weft::recv(weft::view(v), 1);
    EXPECT_EQ(v[999], 999);
    weft::destroy_process_group();
  }));
}

// The engine keeps a receive that fails while posted queued, alive for its matcher,
// until it goes itself: a request still held here reports the failure afterwards, and
// neither it nor one dropped before is touched once freed (the sanitizer run checks).
TEST(Failures, AReceivePendingAtDestroyFailsAndIsReleased) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    int64_t x = 0;
    weft::Request pending;
    static int64_t y = 0;
    if (rank == 1) {
      // From itself: a receive from rank 0 could fail first, when rank 0 leaves.
      pending = weft::irecv(weft::view(std::span(&x, 1)), 1, 9);
      // And one whose handle is gone: only the engine keeps it.
      weft::irecv(weft::view(std::span(&y, 1)), 1, 10);
    }
    weft::barrier();
    weft::destroy_process_group();
    if (rank == 1) {
      try {
        pending.wait();
        ADD_FAILURE() << "a receive nobody sent to completed";
      } catch (const weft::Error& e) {
        EXPECT_NE(std::string(e.what()).find("destroy_process_group was called while this "
                                             "operation was pending"),
                  std::string::npos)
            << e.what();
      }
      EXPECT_EQ(x, 0);
    }
  }));
}

TEST(Failures, InvalidArgumentsNameTheOperationRankAndArgument) {
  expect_all_succeeded(run_ranks(2, [](int rank) {
    weft::init_process_group();
    std::vector<float> v(4);
    auto expect_invalid = [](auto&& call, const std::string& text) {
      try {
        call();
        ADD_FAILURE() << "accepted: " << text;
      } catch (const weft::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      }
    };
    expect_invalid([&] { weft::send(weft::view(v), 2); },
                   "send (rank " + std::to_string(rank) +
                       " of group world): dst 2 (world rank) is outside [0, 2)");
    expect_invalid([&] { weft::isend(weft::view(v), -1); }, "dst -1 (world rank) is outside");
    expect_invalid([&] { weft::irecv(weft::view(v), 5); },
                   "irecv (rank " + std::to_string(rank) + " of group world): src 5");
    expect_invalid([&] { weft::send(weft::view(v), 0, -3); }, "tag -3 is negative");
    expect_invalid([&] { weft::send(weft::Tensor(nullptr, 4, weft::DType::kFloat32), 0); },
                   "4 elements but no data pointer");
    expect_invalid(
        [&] {
          weft::send(weft::Tensor(v.data(), 4, weft::DType::kFloat32, {weft::DeviceType::kCuda, 0}),
                     0);
        },
        "the tensor is on cuda:0, but");
    weft::destroy_process_group();
  }));
}

TEST(Failures, CallsBeforeInitAreRefused) {
  EXPECT_FALSE(weft::is_initialized());
  std::vector<float> v(4);
  try {
    weft::send(weft::view(v), 0);
    ADD_FAILURE() << "send before init_process_group";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), weft::ErrorCode::kState);
    EXPECT_NE(std::string(e.what()).find("call init_process_group first"), std::string::npos);
  }
  EXPECT_THROW(weft::get_rank(), weft::Error);
  EXPECT_THROW(weft::destroy_process_group(), weft::Error);
}

}  // namespace

// What the fabric directory holds: a queue pair's file while it exists and not after,
// a process's region table until it closes its last context, and, once every process
// of a test is done, nothing but the allocator of queue pair numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/harness/multiprocess.h"
#include "tests/transport/ib/soft_verbs/endpoint.h"
#include "tests/transport/ib/soft_verbs/soft_verbs.h"

namespace {

using weft::testing::connect_to_other_rank;
using weft::testing::Endpoint;
using weft::testing::expect_all_succeeded;
using weft::testing::run_ranks;
using weft::testing::soft_verbs_fabric_directory;
using weft::testing::TestRoom;
namespace fs = std::filesystem;

bool exists_in_fabric(const std::string& name) {
  return fs::exists(soft_verbs_fabric_directory() + "/" + name);
}

// Whether this process has a region table in the fabric ("mr.<pid>.<n>").
bool has_region_table() {
  const std::string prefix = "mr." + std::to_string(getpid()) + ".";
  for (const auto& entry : fs::directory_iterator(soft_verbs_fabric_directory())) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(SoftVerbsCleanup, QueuePairFileLastsAsLongAsTheQueuePair) {
  {
    Endpoint end;
    const std::string file = "qp." + std::to_string(end.qp->qp_num);
    EXPECT_TRUE(exists_in_fabric(file));
    EXPECT_TRUE(has_region_table());
    ASSERT_EQ(end.api.destroy_qp(end.qp), 0);
    end.qp = nullptr;
    EXPECT_FALSE(exists_in_fabric(file));
  }
  EXPECT_FALSE(has_region_table()) << "the last context closed";
  EXPECT_FALSE(
      fs::exists("/dev/shm/" + fs::path(soft_verbs_fabric_directory()).filename().string()));
}

TEST(SoftVerbsCleanup, NothingOfTheQueuePairsIsLeftOnceTheProcessesAreDone) {
  const TestRoom room = TestRoom::for_current_test();
  expect_all_succeeded(run_ranks(
      2,
      [&](int rank) {
        Endpoint me;
        const auto peer = connect_to_other_rank(room, rank, me);
        if (rank == 0) {
          const auto files = room.fabric_files();
          for (uint32_t qpn : {me.qp->qp_num, peer.qpn}) {
            EXPECT_TRUE(std::count(files.begin(), files.end(), "qp." + std::to_string(qpn)))
                << "qp." << qpn;
          }
        }
        ASSERT_EQ(me.post_recv(1, 0, 64), 0);
        room.put("posted" + std::to_string(rank), "");
        room.get("posted" + std::to_string(1 - rank));
        ASSERT_EQ(me.post_send(IBV_WR_SEND, 1, 0, 64), 0);
        EXPECT_EQ(me.poll(2).size(), 2u);
        room.put("done" + std::to_string(rank), "");
        room.get("done" + std::to_string(1 - rank));
      },
      room.rank_options()));
  if (!weft::testing::is_rank_process()) {
    EXPECT_EQ(room.fabric_files(), std::vector<std::string>{"qpn"});
  }
}

}  // namespace

// The store protocol between the weftruns of a job on several hosts, with a real store
// server and one client per "node" in this process.
#include "tools/weftrun/node_coordinator.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "base/socket.h"
#include "rendezvous/launcher_reports.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

namespace weft::weftrun {
namespace {

using namespace std::chrono_literals;

class NodeCoordinatorTest : public ::testing::Test {
 protected:
  NodeCoordinatorTest() : server_(base::resolve("127.0.0.1", 0).front()) {}

  std::unique_ptr<NodeCoordinator> node(int k, int nnodes) {
    auto client = std::make_unique<rendezvous::TcpStoreClient>("127.0.0.1", server_.port(),
                                                               base::Deadline::after(5s));
    return std::make_unique<NodeCoordinator>(std::move(client), k, nnodes,
                                             "host-" + std::to_string(k));
  }

  static NodeFailure failure(int node, const std::string& description, int code, bool killed) {
    NodeFailure f;
    f.node = node;
    f.host = "host-" + std::to_string(node);
    f.description = description;
    f.exit_code = code;
    f.killed = killed;
    return f;
  }

  rendezvous::TcpStoreServer server_;
};

TEST_F(NodeCoordinatorTest, FailureRecordsSurviveTheirEncoding) {
  NodeFailure f = failure(3, "rank 7 (pid 12) exited with status 2\nand more", 2, true);
  f.rank = 7;
  NodeFailure back = NodeFailure::decode(f.encode());
  EXPECT_EQ(back.node, 3);
  EXPECT_EQ(back.rank, 7);
  EXPECT_EQ(back.host, "host-3");
  EXPECT_EQ(back.description, f.description);
  EXPECT_EQ(back.exit_code, 2);
  EXPECT_TRUE(back.killed);
  EXPECT_THROW(NodeFailure::decode("garbage"), InvalidArgument);
  EXPECT_EQ(describe_node_failure(f), "node 3 (host-3): " + f.description);
}

TEST_F(NodeCoordinatorTest, EveryNodeSeesEachFailureOnceInPostingOrder) {
  auto a = node(0, 2), b = node(1, 2);
  a->join();
  b->join();
  EXPECT_TRUE(a->poll().empty());
  b->post_failure(failure(1, "rank 1 exited with status 3", 3, false));
  auto seen = a->poll();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].node, 1);
  EXPECT_EQ(seen[0].exit_code, 3);
  EXPECT_TRUE(a->poll().empty()) << "a failure is reported once";
  a->post_failure(failure(0, "rank 0 exited with status 1", 1, false));
  EXPECT_EQ(b->poll().size(), 2u) << "the poster sees its own records too";
  EXPECT_EQ(b->failures().size(), 2u);
  EXPECT_EQ(b->failures()[0].node, 1);
  EXPECT_EQ(b->failures()[1].node, 0);
}

TEST_F(NodeCoordinatorTest, AKilledRankIsTheRootCauseOverEarlierExits) {
  std::vector<NodeFailure> failures = {failure(0, "exited 1", 1, false),
                                       failure(1, "killed", 137, true),
                                       failure(2, "killed later", 137, true)};
  EXPECT_EQ(root_cause(failures).description, "killed");
  failures.erase(failures.begin() + 1, failures.end());
  EXPECT_EQ(root_cause(failures).description, "exited 1");
}

TEST_F(NodeCoordinatorTest, NodeZeroWaitsForTheOthersToFinish) {
  auto a = node(0, 3), b = node(1, 3), c = node(2, 3);
  a->join();
  b->join();
  c->join();
  b->finish();
  std::thread late([&] {
    std::this_thread::sleep_for(300ms);
    c->finish();
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(a->wait_for_nodes(5s).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 250ms);
  late.join();
}

TEST_F(NodeCoordinatorTest, EveryNodeReadsEveryRanksEndAndTimeoutReport) {
  auto a = node(0, 2), b = node(1, 2);
  a->join();
  b->join();
  // Rank 0 (node 0) timed out waiting for rank 3 (node 1), which weftrun had to stop.
  rendezvous::TcpStoreClient rank0("127.0.0.1", server_.port(), base::Deadline::after(5s));
  rank0.set(rendezvous::timed_out_waiting_key(0), "3", base::Deadline::after(5s));
  a->post_rank_end(0, false, "host-0:10");
  a->post_rank_end(1, true, "host-0:11");
  std::thread later([&] {
    std::this_thread::sleep_for(100ms);
    b->post_rank_end(2, false, "host-1:12");
    b->post_rank_end(3, true, "host-1:13");
  });
  std::optional<std::vector<RankEnd>> ends = a->rank_ends(4, base::Deadline::after(5s));
  later.join();
  ASSERT_TRUE(ends);
  ASSERT_EQ(ends->size(), 4u);
  EXPECT_EQ((*ends)[0].waited_for, 3);
  EXPECT_FALSE((*ends)[0].stopped_by_weftrun);
  EXPECT_EQ((*ends)[3].where, "host-1:13");
  EXPECT_TRUE((*ends)[3].stopped_by_weftrun);
  EXPECT_FALSE((*ends)[3].waited_for);
  // A rank whose node never posts: nothing, at the deadline.
  EXPECT_FALSE(a->rank_ends(5, base::Deadline::after(200ms)));
}

TEST_F(NodeCoordinatorTest, ANodeThatNeverJoinsIsGivenUpOn) {
  auto a = node(0, 2);
  a->join();
  std::vector<std::string> lost = a->wait_for_nodes(200ms);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0], "node 1 never joined the job");
}

TEST_F(NodeCoordinatorTest, ALostStoreIsReported) {
  auto server = std::make_unique<rendezvous::TcpStoreServer>(base::resolve("127.0.0.1", 0).front());
  auto client = std::make_unique<rendezvous::TcpStoreClient>("127.0.0.1", server->port(),
                                                             base::Deadline::after(5s));
  NodeCoordinator b(std::move(client), 1, 2, "host-1");
  b.join();
  server.reset();
  EXPECT_THROW(b.poll(), Error);
}

}  // namespace
}  // namespace weft::weftrun

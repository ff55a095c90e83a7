#include "tools/weftrun/job_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace weft::weftrun {
namespace {

JobLayout layout(const std::vector<std::string>& args) {
  Options options = parse_options(args);
  return layout_job(options, hosts_of(options));
}

std::string layout_error(const std::vector<std::string>& args) {
  try {
    layout(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(JobLayout, OneHostRunsEveryRank) {
  JobLayout l = layout({"-n", "3", "prog"});
  EXPECT_EQ(l.world_size, 3);
  EXPECT_EQ(l.ranks_per_node, (std::vector<int>{3}));
  EXPECT_TRUE(l.hosts.empty());
}

TEST(JobLayout, NodesRunConsecutiveRanks) {
  JobLayout l = layout(
      {"--nnodes", "3", "--node-rank", "2", "--nproc-per-node", "4", "--master-addr", "h", "prog"});
  EXPECT_EQ(l.world_size, 12);
  EXPECT_EQ(l.ranks_per_node, (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(l.first_rank(0), 0);
  EXPECT_EQ(l.first_rank(2), 8);
  // -n is the whole job: the same layout, and a consistent -n is accepted with it.
  EXPECT_EQ(layout({"--nnodes", "3", "--node-rank", "0", "-n", "12", "--master-addr", "h", "prog"})
                .ranks_per_node,
            (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(layout({"--nnodes", "3", "--node-rank", "0", "-n", "12", "--nproc-per-node", "4",
                    "--master-addr", "h", "prog"})
                .world_size,
            12);
}

TEST(JobLayout, RanksFillTheHostsInOrder) {
  JobLayout l = layout({"-H", "a:2,b,c:3", "prog"});
  EXPECT_EQ(l.world_size, 6);
  EXPECT_EQ(l.ranks_per_node, (std::vector<int>{2, 1, 3}));
  EXPECT_EQ(l.hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(l.first_rank(2), 3);
  // Fewer ranks than slots: the last host gets what is left, a host after it nothing.
  JobLayout partial = layout({"-n", "3", "-H", "a:2,b:2,c:2", "prog"});
  EXPECT_EQ(partial.ranks_per_node, (std::vector<int>{2, 1}));
  EXPECT_EQ(partial.hosts, (std::vector<std::string>{"a", "b"}));
}

TEST(JobLayout, HostListsTakeBracketedIpv6Addresses) {
  EXPECT_EQ(parse_host_list("-H", "[fd00::1]:2,10.0.0.2:3,[fd00::3]"),
            (std::vector<HostSlots>{{"fd00::1", 2}, {"10.0.0.2", 3}, {"fd00::3", 1}}));
}

TEST(JobLayout, ReadsHostfilesInOpenMpisFormAndOurs) {
  std::vector<HostSlots> hosts = parse_hostfile("hosts.txt",
                                                "# the cluster\n"
                                                "node1 slots=4\n"
                                                "\n"
                                                "node2:2   # a comment\n"
                                                "node3 slots=2 max_slots=8\n"
                                                "node4\n");
  EXPECT_EQ(hosts,
            (std::vector<HostSlots>{{"node1", 4}, {"node2", 2}, {"node3", 2}, {"node4", 1}}));
}

TEST(JobLayout, HostfileMistakesNameTheLine) {
  auto error = [](const std::string& text) {
    try {
      parse_hostfile("hosts.txt", text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("a\nb slots=0\n").find("hosts.txt:2"), std::string::npos);
  EXPECT_NE(error("a cores=2\n").find("hosts.txt:1: 'cores=2' is not understood"),
            std::string::npos);
  EXPECT_NE(error("# nothing\n").find("names no host"), std::string::npos);
  EXPECT_NE(layout_error({"--hostfile", "/nonexistent/hosts", "prog"})
                .find("--hostfile /nonexistent/hosts: No such file or directory"),
            std::string::npos);
}

struct LayoutErrorCase {
  std::vector<std::string> args;
  std::string expected;
};

class JobLayoutErrors : public ::testing::TestWithParam<LayoutErrorCase> {};

TEST_P(JobLayoutErrors, NamesTheDisagreement) {
  std::string message = layout_error(GetParam().args);
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    EveryDisagreement, JobLayoutErrors,
    ::testing::Values(LayoutErrorCase{{"--nnodes", "2", "--node-rank", "0", "-n", "3",
                                       "--master-addr", "h", "prog"},
                                      "-n 3 ranks do not divide over --nnodes 2"},
                      LayoutErrorCase{{"--nnodes", "2", "--node-rank", "0", "-n", "6",
                                       "--nproc-per-node", "2", "--master-addr", "h", "prog"},
                                      "-n 6 disagrees with --nnodes 2 times --nproc-per-node 2"},
                      LayoutErrorCase{{"--nnodes", "4096", "--node-rank", "0", "--nproc-per-node",
                                       "2", "--master-addr", "h", "prog"},
                                      "is more than 4096 ranks"},
                      LayoutErrorCase{{"-n", "5", "-H", "a:2,b:2", "prog"},
                                      "-n 5: the hosts have only 4 slot(s) (a:2, b:2)"},
                      LayoutErrorCase{{"--nnodes", "3", "-H", "a,b", "prog"},
                                      "--nnodes 3 but 2 host(s)"}));

}  // namespace
}  // namespace weft::weftrun

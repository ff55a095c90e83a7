// With WEFT_TRANSPORTS unset, verbs serve peers on other hosts only. Two "hosts"
// (network namespaces joined by a bridge, tests/harness/bridged_hosts.h), two ranks on
// each, every rank in an IPC namespace of its own so that shared memory serves no pair,
// and the soft verbs device in every rank: peers on the other host get verbs links,
// the peer on the same host tcp. Needs root and iproute2; skipped, saying why,
// otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tests/harness/bridged_hosts.h"
#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

class TwoHostsOfTwo : public ::testing::Test {
 protected:
  static constexpr int kSubnet = 84;

  static void SetUpTestSuite() {
    if (is_rank_process()) return;  // the parent built the hosts
    if (geteuid() != 0) {
      skip_reason_ = "needs root to create network namespaces";
      return;
    }
    hosts_ = std::make_unique<BridgedHosts>("ib", 2, kSubnet);
    skip_reason_ = hosts_->failure();
  }
  static void TearDownTestSuite() { hosts_.reset(); }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }

  static inline std::unique_ptr<BridgedHosts> hosts_;
  static inline std::string skip_reason_;
};

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(TwoHostsOfTwo, VerbsServePeersOnOtherHostsAndTcpTheRest) {
  RunOptions o;
  o.launcher_store = false;
  o.env["MASTER_ADDR"] = "10." + std::to_string(kSubnet) + ".0.1";  // the first host's
  o.env["WEFT_TEST_SOFT_VERBS"] = "1";
  o.env["WEFT_DEBUG"] = "INFO";
  o.wrapper = [](int rank) {
    std::vector<std::string> command = hosts_->exec(rank / 2);
    command.insert(command.end(), {"unshare", "--ipc"});
    return command;
  };
  auto ranks = run_ranks(
      4,
      [](int rank) {
        weft::init_process_group();
        int64_t sum = rank;
        weft::all_reduce(weft::view(std::span(&sum, 1)));
        EXPECT_EQ(sum, 6);
        std::vector<int32_t> big(1 << 20, rank);
        weft::broadcast(weft::view(big), 3);
        EXPECT_EQ(big.front() + big.back(), 6);
        weft::destroy_process_group();
      },
      o);
  expect_all_succeeded(ranks);
  for (const RankResult& r : ranks) {
    const int same_host = r.rank ^ 1;
    EXPECT_EQ(count(r.output, ": ib softib0:1 qpn "), 2) << r.output;
    EXPECT_EQ(count(r.output, "(another host or network namespace)"), 2) << r.output;
    EXPECT_NE(r.output.find("-> rank " + std::to_string(same_host) + " "), std::string::npos);
    EXPECT_EQ(count(r.output, ": tcp "), 1) << r.output;
    EXPECT_EQ(count(r.output, "verbs: found softib0 port 1"), 1) << r.output;
  }
}

}  // namespace
}  // namespace weft::testing

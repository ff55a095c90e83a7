#include "tools/weftrun/host_agents.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace weft::weftrun {
namespace {

// What a POSIX shell makes of `line`: each word it would pass, one per line.
std::string words_of(const std::string& line) {
  std::string command = "set -- " + line + "; for w in \"$@\"; do printf '%s\\n' \"$w\"; done";
  FILE* shell = popen(("sh -c " + shell_quote(command)).c_str(), "r");
  std::string out;
  char buffer[256];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, shell)) > 0) out.append(buffer, n);
  EXPECT_EQ(pclose(shell), 0);
  return out;
}

TEST(HostAgents, QuotedWordsReachTheShellUnchanged) {
  for (const std::string& word :
       {std::string("plain"), std::string("two words"), std::string("it's"),
        std::string("$HOME `id` \"q\" \\ *"), std::string("")}) {
    EXPECT_EQ(words_of(shell_quote(word)), word + "\n") << word;
  }
}

TEST(HostAgents, EachNodeRunsWeftrunWithItsShare) {
  Options options =
      parse_options({"-H", "a:2,[fd00::2]:1", "--grace", "2.5", "--timeout", "60", "--bind-to",
                     "core", "--launch-agent", "ssh -p 2222", "train", "--lr", "0.1 x"});
  JobLayout layout = layout_job(options, options.hosts);
  AgentLaunch launch;
  launch.agent = options.launch_agent;
  launch.weftrun = "/opt/weft/bin/weftrun";
  launch.master_addr = "a";
  launch.master_port = 29500;
  launch.exports = {"OMP_NUM_THREADS=4"};
  std::vector<std::string> argv = agent_command(options, layout, 1, launch);
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[0], "ssh");
  EXPECT_EQ(argv[1], "-p");
  EXPECT_EQ(argv[2], "2222");
  EXPECT_EQ(argv[3], "fd00::2");
  const std::string prefix = "read -r WEFT_AUTH_TOKEN && export WEFT_AUTH_TOKEN && exec ";
  ASSERT_EQ(argv[4].rfind(prefix, 0), 0u) << argv[4];
  EXPECT_EQ(words_of(argv[4].substr(prefix.size())),
            "/opt/weft/bin/weftrun\n-H\na:2,[fd00::2]:1\n-n\n3\n--node-rank\n1\n--master-addr\n"
            "a\n--master-port\n29500\n--grace\n2.5\n--bind-to\ncore\n--timeout\n60\n-x\n"
            "OMP_NUM_THREADS=4\n--\ntrain\n--lr\n0.1 x\n");
}

TEST(HostAgents, TheRemoteCommandLineParsesBackToTheSameShare) {
  Options options = parse_options({"-n", "3", "-H", "a:2,b:2", "prog"});
  JobLayout layout = layout_job(options, options.hosts);
  AgentLaunch launch{"ssh", "/bin/weftrun", "a", 29500, {}};
  std::string line = agent_command(options, layout, 1, launch).back();
  std::string words = words_of(line.substr(line.find("exec ") + 5));
  std::vector<std::string> args;
  for (size_t at = 0, end; (end = words.find('\n', at)) != std::string::npos; at = end + 1) {
    args.push_back(words.substr(at, end - at));
  }
  args.erase(args.begin());  // the weftrun path
  Options remote = parse_options(args);
  JobLayout remote_layout = layout_job(remote, remote.hosts);
  EXPECT_EQ(remote.node_rank, 1);
  EXPECT_EQ(remote_layout.ranks_per_node, layout.ranks_per_node);
  EXPECT_EQ(remote_layout.world_size, 3);
  EXPECT_EQ(remote.program, "prog");
}

TEST(HostAgents, FindsItsOwnExecutable) {
  std::string self = this_executable();
  EXPECT_NE(self.find("host_agents_test"), std::string::npos) << self;
}

}  // namespace
}  // namespace weft::weftrun

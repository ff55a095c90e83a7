#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/weftrun/options.h"

namespace weft::weftrun {
namespace {

using std::chrono::milliseconds;

Options parse(const std::vector<std::string>& args) { return parse_options(args); }

// The UsageError's message, or "" when `args` parse.
std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(WeftrunOptions, ParsesTheCommonForm) {
  Options o = parse({"-n", "4", "./train", "--lr", "0.1"});
  EXPECT_FALSE(o.show_help);
  EXPECT_EQ(o.num_ranks, 4);
  EXPECT_EQ(o.program, "./train");
  EXPECT_EQ(o.program_args, (std::vector<std::string>{"--lr", "0.1"}));
  EXPECT_TRUE(o.prefix_output);
  EXPECT_FALSE(o.timeout.has_value());
  EXPECT_EQ(o.grace, milliseconds(5000));
  EXPECT_TRUE(o.exports.empty());
}

TEST(WeftrunOptions, AcceptsNpAsWellAsN) {
  EXPECT_EQ(parse({"-np", "3", "prog"}).num_ranks, 3);
  EXPECT_EQ(parse({"-n", "1", "prog"}).num_ranks, 1);
  EXPECT_EQ(parse({"-n", "4096", "prog"}).num_ranks, kMaxRanks);
  EXPECT_EQ(parse({"-n", "2", "-n", "5", "prog"}).num_ranks, 5);
}

TEST(WeftrunOptions, ParsesEveryOption) {
  Options o = parse({"-n", "2", "-x", "A", "-x", "B=1=2", "-x", "C=", "--timeout", "1.5", "--grace",
                     "0", "--no-prefix", "prog"});
  EXPECT_EQ(o.exports,
            (std::vector<ExportedVariable>{{"A", std::nullopt}, {"B", "1=2"}, {"C", ""}}));
  EXPECT_EQ(o.timeout, milliseconds(1500));
  EXPECT_EQ(o.grace, milliseconds(0));
  EXPECT_FALSE(o.prefix_output);
}

TEST(WeftrunOptions, LongOptionsTakeInlineValues) {
  Options o = parse({"--timeout=2", "--grace=0.25", "-n", "2", "prog"});
  EXPECT_EQ(o.timeout, milliseconds(2000));
  EXPECT_EQ(o.grace, milliseconds(250));
}

TEST(WeftrunOptions, RoundsFractionsOfMillisecondsUp) {
  EXPECT_EQ(parse({"-n", "1", "--timeout", "0.0001", "prog"}).timeout, milliseconds(1));
}

TEST(WeftrunOptions, EverythingAfterTheProgramBelongsToIt) {
  Options o = parse({"-n", "2", "prog", "-n", "7", "--no-prefix", "-x", "A"});
  EXPECT_EQ(o.num_ranks, 2);
  EXPECT_TRUE(o.prefix_output);
  EXPECT_TRUE(o.exports.empty());
  EXPECT_EQ(o.program_args, (std::vector<std::string>{"-n", "7", "--no-prefix", "-x", "A"}));
}

TEST(WeftrunOptions, DoubleDashEndsTheOptions) {
  Options o = parse({"-n", "2", "--", "-weird-name", "arg"});
  EXPECT_EQ(o.program, "-weird-name");
  EXPECT_EQ(o.program_args, (std::vector<std::string>{"arg"}));
}

TEST(WeftrunOptions, HelpStopsParsing) {
  EXPECT_TRUE(parse({"-h"}).show_help);
  EXPECT_TRUE(parse({"--help"}).show_help);
  EXPECT_TRUE(parse({"-n", "2", "--help"}).show_help);
  EXPECT_TRUE(parse({"--help", "--bogus", "-n", "0"}).show_help);
}

TEST(WeftrunOptions, HelpAfterTheProgramIsTheProgramsOwn) {
  Options o = parse({"-n", "2", "prog", "--help"});
  EXPECT_FALSE(o.show_help);
  EXPECT_EQ(o.program_args, (std::vector<std::string>{"--help"}));
}

TEST(WeftrunOptions, ParsesTheOptionsOfAJobOnSeveralHosts) {
  Options o = parse({"--nnodes", "2", "--node-rank", "1", "--nproc-per-node", "8", "--master-addr",
                     "10.0.0.1", "--master-port", "29600", "--bind-to", "core", "prog"});
  EXPECT_EQ(o.nnodes, 2);
  EXPECT_EQ(o.node_rank, 1);
  EXPECT_EQ(o.nproc_per_node, 8);
  EXPECT_EQ(o.num_ranks, 0);
  EXPECT_EQ(o.master_addr, "10.0.0.1");
  EXPECT_EQ(o.master_port, 29600);
  EXPECT_EQ(o.bind_to, BindTo::kCore);
}

TEST(WeftrunOptions, AcceptsTorchrunsSpellings) {
  Options o = parse({"--nnodes=2", "--node_rank=0", "--nproc_per_node=4", "--master_addr=node0",
                     "--master_port", "1234", "train.py"});
  EXPECT_EQ(o.node_rank, 0);
  EXPECT_EQ(o.nproc_per_node, 4);
  EXPECT_EQ(o.master_addr, "node0");
  EXPECT_EQ(o.master_port, 1234);
  // On one host --nproc-per-node alone says how many ranks to start.
  EXPECT_EQ(parse({"--nproc_per_node", "3", "prog"}).nproc_per_node, 3);
}

TEST(WeftrunOptions, ParsesHostsAndTheLaunchAgent) {
  Options o = parse({"-H", "a:2,b", "--launch-agent", "ssh -p 2222", "prog"});
  EXPECT_EQ(o.hosts, (std::vector<HostSlots>{{"a", 2}, {"b", 1}}));
  EXPECT_EQ(o.launch_agent, "ssh -p 2222");
  EXPECT_EQ(o.num_ranks, 0);
  EXPECT_EQ(parse({"--hostfile", "hosts.txt", "prog"}).hostfile, "hosts.txt");
  EXPECT_EQ(parse({"-n", "2", "prog"}).launch_agent, "ssh");
  EXPECT_EQ(parse({"-n", "2", "prog"}).bind_to, BindTo::kNone);
  EXPECT_EQ(parse({"-n", "2", "--bind-to=numa", "prog"}).bind_to, BindTo::kNuma);
}

TEST(WeftrunOptions, VersionStopsParsing) {
  EXPECT_TRUE(parse({"--version"}).show_version);
  EXPECT_TRUE(parse({"-n", "2", "--version", "--bogus"}).show_version);
  EXPECT_FALSE(parse({"-n", "2", "prog", "--version"}).show_version);
}

// The original launcher's flags: --use_env changes nothing (LOCAL_RANK is always set);
// --pass-local-rank asks for --local_rank=N after the program's own arguments.
TEST(WeftrunOptions, AcceptsTheOriginalLaunchersFlags) {
  Options plain = parse({"-n", "2", "prog", "a"});
  Options use_env = parse({"-n", "2", "--use_env", "prog", "a"});
  EXPECT_EQ(use_env.program, plain.program);
  EXPECT_EQ(use_env.program_args, plain.program_args);
  EXPECT_FALSE(use_env.pass_local_rank);
  EXPECT_FALSE(parse({"--use-env", "-n", "2", "prog"}).pass_local_rank);
  EXPECT_FALSE(plain.pass_local_rank);
  Options pass = parse({"-n", "2", "--pass-local-rank", "prog", "a"});
  EXPECT_TRUE(pass.pass_local_rank);
  EXPECT_EQ(pass.program_args, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(parse({"--pass_local_rank", "-n", "2", "prog"}).pass_local_rank);
}

TEST(WeftrunOptions, UsageTextNamesEveryOption) {
  std::string text = usage_text();
  for (const char* flag : {"-n N",
                           "-np N",
                           "-x NAME",
                           "-x NAME=value",
                           "--timeout S",
                           "--grace S",
                           "--no-prefix",
                           "--help",
                           "--nproc-per-node P",
                           "--nnodes N",
                           "--node-rank K",
                           "--master-addr A",
                           "--master-port Q",
                           "-H LIST",
                           "--hostfile F",
                           "--launch-agent C",
                           "--bind-to W",
                           "--nproc_per_node",
                           "--pass-local-rank",
                           "--use-env",
                           "--use_env",
                           "--version"}) {
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
  }
}

struct ErrorCase {
  std::vector<std::string> args;
  std::string expected;  // a part of the message
};

class WeftrunOptionErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(WeftrunOptionErrors, NamesTheProblem) {
  std::string message = usage_error(GetParam().args);
  EXPECT_NE(message, "") << "parsed without error";
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    EveryErrorCase, WeftrunOptionErrors,
    ::testing::Values(
        ErrorCase{{}, "missing the program to run"},
        ErrorCase{{"-n", "2"}, "missing the program to run"},
        ErrorCase{{"-n", "2", "--"}, "missing the program to run after '--'"},
        ErrorCase{{"prog"}, "missing -n N"}, ErrorCase{{"-x", "A", "prog"}, "missing -n N"},
        ErrorCase{{"--nnodes", "2", "-n", "4", "prog"},
                  "--nnodes 2 needs --node-rank K (which node this host is, 0 to 1)"},
        ErrorCase{{"--nnodes", "2", "--node-rank", "1", "-n", "4", "prog"},
                  "--nnodes 2 needs --master-addr A"},
        ErrorCase{{"--nnodes", "2", "--node-rank", "2", "-n", "4", "prog"},
                  "--node-rank 2: must be below --nnodes 2"},
        ErrorCase{{"--node-rank", "-1", "-n", "4", "prog"},
                  "--node-rank -1: the node rank must be an integer from 0"},
        ErrorCase{{"--nnodes", "0", "-n", "4", "prog"}, "--nnodes 0: the number of nodes"},
        ErrorCase{{"-n", "2", "--master-port", "70000", "prog"},
                  "--master-port 70000: the port must be an integer from 1 to 65535"},
        ErrorCase{{"-n", "2", "--master-addr=", "prog"}, "--master-addr needs a host name"},
        ErrorCase{{"--nproc-per-node", "0", "prog"}, "--nproc-per-node 0: the number of ranks"},
        ErrorCase{{"-n", "2", "--bind-to", "socket", "prog"},
                  "--bind-to socket: expected core, numa or none"},
        ErrorCase{{"-H", "a:0", "prog"}, "-H a:0: the number of slots of 'a' must be"},
        ErrorCase{{"-H", "a,,b", "prog"}, "-H a,,b: an empty host name"},
        ErrorCase{{"-H", "a", "--hostfile", "f", "prog"}, "-H and --hostfile both name the hosts"},
        ErrorCase{{"-H", "a:2", "--nproc-per-node", "2", "prog"},
                  "--nproc-per-node with -H: the hosts' slot counts say"},
        ErrorCase{{"-H", "a:2", "--node-rank", "0", "prog"},
                  "--node-rank with -H/--hostfile needs --master-addr"},
        ErrorCase{{"-H", "a", "--launch-agent=", "prog"}, "--launch-agent needs a command"},
        ErrorCase{{"-n"}, "-n needs a value"}, ErrorCase{{"-np"}, "-np needs a value"},
        ErrorCase{{"-n", "0", "prog"},
                  "-n 0: the number of ranks must be an integer from 1 to 4096"},
        ErrorCase{{"-n", "-3", "prog"}, "-n -3: the number of ranks"},
        ErrorCase{{"-n", "4097", "prog"}, "-n 4097: the number of ranks"},
        ErrorCase{{"-n", "99999999999999999999", "prog"}, "the number of ranks"},
        ErrorCase{{"-n", "two", "prog"}, "-n two: the number of ranks"},
        ErrorCase{{"-n", "2x", "prog"}, "-n 2x: the number of ranks"},
        ErrorCase{{"-n", "", "prog"}, "-n : the number of ranks"},
        ErrorCase{{"-np", "0", "prog"}, "-np 0: the number of ranks"},
        ErrorCase{{"-n", "2", "--timeout"}, "--timeout needs a value"},
        ErrorCase{{"-n", "2", "--timeout", "0", "prog"},
                  "--timeout 0: expected a number of seconds greater than 0"},
        ErrorCase{{"-n", "2", "--timeout", "-1", "prog"}, "--timeout -1: expected"},
        ErrorCase{{"-n", "2", "--timeout", "soon", "prog"}, "--timeout soon: expected"},
        ErrorCase{{"-n", "2", "--timeout", "5s", "prog"}, "--timeout 5s: expected"},
        ErrorCase{{"-n", "2", "--timeout", "inf", "prog"}, "--timeout inf: expected"},
        ErrorCase{{"-n", "2", "--timeout", "nan", "prog"}, "--timeout nan: expected"},
        ErrorCase{{"-n", "2", "--timeout", "1e300", "prog"}, "--timeout 1e300: expected"},
        ErrorCase{{"-n", "2", "--timeout=", "prog"}, "--timeout : expected"},
        ErrorCase{{"-n", "2", "--grace"}, "--grace needs a value"},
        ErrorCase{{"-n", "2", "--grace", "-0.5", "prog"},
                  "--grace -0.5: expected a number of seconds (0 or more)"},
        ErrorCase{{"-n", "2", "--grace", "later", "prog"}, "--grace later: expected"},
        ErrorCase{{"-n", "2", "-x"}, "-x needs a value"},
        ErrorCase{{"-n", "2", "-x", "=1", "prog"}, "-x =1: '' is not a variable name"},
        ErrorCase{{"-n", "2", "-x", "1A=2", "prog"}, "-x 1A=2: '1A' is not a variable name"},
        ErrorCase{{"-n", "2", "-x", "A-B", "prog"}, "'A-B' is not a variable name"},
        ErrorCase{{"-n", "2", "-x", "RANK=3", "prog"}, "-x RANK=3: RANK is set by weftrun"},
        ErrorCase{{"-n", "2", "-x", "WORLD_SIZE", "prog"}, "WORLD_SIZE is set by weftrun"},
        ErrorCase{{"-n", "2", "-x", "LOCAL_RANK=0", "prog"}, "LOCAL_RANK is set by weftrun"},
        ErrorCase{{"-n", "2", "-x", "LOCAL_WORLD_SIZE=1", "prog"}, "LOCAL_WORLD_SIZE is set"},
        ErrorCase{{"-n", "2", "-x", "MASTER_ADDR=h", "prog"}, "MASTER_ADDR is set by weftrun"},
        ErrorCase{{"-n", "2", "-x", "MASTER_PORT=1", "prog"}, "MASTER_PORT is set by weftrun"},
        ErrorCase{{"-n", "2", "-x", "WEFT_LAUNCHER_STORE=0", "prog"}, "WEFT_LAUNCHER_STORE is set"},
        ErrorCase{{"-n", "2", "--bogus", "prog"}, "unknown option '--bogus'"},
        ErrorCase{{"-n", "2", "-q", "prog"}, "unknown option '-q'"},
        ErrorCase{{"-n", "2", "--no-prefix=yes", "prog"}, "unknown option '--no-prefix=yes'"},
        ErrorCase{{"-n", "2", "-x=A", "prog"}, "unknown option '-x=A'"},
        ErrorCase{{"--n", "2", "prog"}, "unknown option '--n'"}));

}  // namespace
}  // namespace weft::weftrun

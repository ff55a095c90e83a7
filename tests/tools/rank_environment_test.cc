#include "tools/weftrun/rank_environment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace weft::weftrun {
namespace {

std::map<std::string, std::string> as_map(const std::vector<std::string>& environment) {
  std::map<std::string, std::string> out;
  for (const auto& entry : environment) {
    size_t equals = entry.find('=');
    EXPECT_TRUE(out.emplace(entry.substr(0, equals), entry.substr(equals + 1)).second)
        << "duplicate " << entry;
  }
  return out;
}

TEST(RankEnvironment, TellsEachRankWhereItStands) {
  // Rank 6 of 8 is the third of the four ranks on node 1.
  RankPlacement placement{6, 8, "10.0.0.1", 40123, 2, 4, 1};
  auto env = as_map(rank_environment({"PATH=/bin", "HOME=/root"}, {}, placement));
  EXPECT_EQ(env["RANK"], "6");
  EXPECT_EQ(env["WORLD_SIZE"], "8");
  EXPECT_EQ(env["LOCAL_RANK"], "2");
  EXPECT_EQ(env["LOCAL_WORLD_SIZE"], "4");
  EXPECT_EQ(env["GROUP_RANK"], "1");
  EXPECT_EQ(env["MASTER_ADDR"], "10.0.0.1");
  EXPECT_EQ(env["MASTER_PORT"], "40123");
  EXPECT_EQ(env["WEFT_LAUNCHER_STORE"], "1");
  EXPECT_EQ(env["WEFT_RANK_PREFIXED"], "0");
  EXPECT_EQ(env["PATH"], "/bin");
  EXPECT_EQ(env["HOME"], "/root");
  EXPECT_EQ(env.size(), 11u);
}

TEST(RankEnvironment, SaysWhetherWeftrunPrefixesTheRanksLines) {
  RankPlacement placement{0, 2, "127.0.0.1", 5};
  placement.rank_prefixed = true;
  EXPECT_EQ(as_map(rank_environment({"WEFT_RANK_PREFIXED=0"}, {}, placement))["WEFT_RANK_PREFIXED"],
            "1");
  placement.rank_prefixed = false;
  EXPECT_EQ(as_map(rank_environment({"WEFT_RANK_PREFIXED=1"}, {}, placement))["WEFT_RANK_PREFIXED"],
            "0");
}

TEST(RankEnvironment, LauncherValuesReplaceInheritedOnes) {
  RankPlacement placement{0, 2, "127.0.0.1", 5};
  auto env = as_map(rank_environment(
      {"RANK=7", "WORLD_SIZE=16", "MASTER_PORT=29500", "WEFT_LAUNCHER_STORE=0"}, {}, placement));
  EXPECT_EQ(env["RANK"], "0");
  EXPECT_EQ(env["WORLD_SIZE"], "2");
  EXPECT_EQ(env["MASTER_PORT"], "5");
  EXPECT_EQ(env["WEFT_LAUNCHER_STORE"], "1");
}

TEST(RankEnvironment, AssignmentsReplaceInheritedValuesAndTheLastOneWins) {
  RankPlacement placement{0, 1, "127.0.0.1", 5};
  std::vector<std::string> env =
      rank_environment({"A=old", "B=kept"}, {"A=new", "C=1", "C=2"}, placement);
  auto map = as_map(env);
  EXPECT_EQ(map["A"], "new");
  EXPECT_EQ(map["B"], "kept");
  EXPECT_EQ(map["C"], "2");
  // Inherited variables keep their place ahead of the added ones.
  EXPECT_EQ(env[0], "A=new");
  EXPECT_EQ(env[1], "B=kept");
}

TEST(RankEnvironment, ResolvesExportsFromTheInheritedEnvironment) {
  std::vector<ExportedVariable> exports = {
      {"HOME", std::nullopt}, {"SET", "given"}, {"ABSENT", std::nullopt}, {"EMPTY", ""}};
  ResolvedExports resolved = resolve_exports(exports, {"HOME=/root", "HOMEX=no"});
  EXPECT_EQ(resolved.assignments, (std::vector<std::string>{"HOME=/root", "SET=given", "EMPTY="}));
  EXPECT_EQ(resolved.missing, (std::vector<std::string>{"ABSENT"}));
}

TEST(RankEnvironment, ValueWithEqualsSignsSurvives) {
  ResolvedExports resolved = resolve_exports({{"OPTS", std::nullopt}}, {"OPTS=a=b=c"});
  EXPECT_EQ(resolved.assignments, (std::vector<std::string>{"OPTS=a=b=c"}));
}

TEST(RankEnvironment, VariableNames) {
  for (const char* good : {"A", "_", "_A1", "weft_x", "Z9"}) {
    EXPECT_TRUE(is_valid_variable_name(good)) << good;
  }
  for (const char* bad : {"", "1A", "A-B", "A B", "A=B", "é"}) {
    EXPECT_FALSE(is_valid_variable_name(bad)) << bad;
  }
}

TEST(RankEnvironment, LauncherVariablesAreTheOnesSetForEveryRank) {
  RankPlacement placement{0, 1, "127.0.0.1", 5};
  auto env = as_map(rank_environment({}, {}, placement));
  EXPECT_EQ(env.size(), launcher_variable_names().size());
  for (const auto& name : launcher_variable_names()) EXPECT_EQ(env.count(name), 1u) << name;
}

}  // namespace
}  // namespace weft::weftrun

// Programs built with weft start on hosts without rdma-core. libweft and weft-info do
// not link libibverbs (ldd lists it for neither, nor for anything they link), and a weft
// program runs where libibverbs cannot be loaded, its one INFO line about verbs saying
// why. (weft-info there: tests/tools/weft_info_test.)
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "tests/harness/command_output.h"
#include "tests/transport/ib/hidden_libibverbs.h"

namespace {

using Output = weft::testing::CommandOutput;

Output run(const std::string& command) { return weft::testing::run_command(command); }

TEST(WithoutLibibverbs, NeitherLibweftNorWeftInfoLinksIt) {
  for (const char* binary : {"libweft.so", "tools/info/weft-info"}) {
    const Output ldd = run(std::string("ldd ") + binary + " 2>&1");
    ASSERT_EQ(ldd.exit_code, 0) << ldd.text;
    EXPECT_NE(ldd.text.find("libc.so.6"), std::string::npos) << binary << ":\n" << ldd.text;
    EXPECT_EQ(ldd.text.find("libibverbs"), std::string::npos) << binary << ":\n" << ldd.text;
  }
}

TEST(WithoutLibibverbs, WeftProgramRunsAndSaysWhyInItsInfoLine) {
  const std::string command = weft::testing::without_libibverbs(
      "exec env -u MASTER_ADDR -u MASTER_PORT -u WORLD_SIZE -u RANK WEFT_DEBUG=INFO "
      "tests/transport/ib/world_of_one");
  if (command.empty()) GTEST_SKIP() << "no private mount namespace here (needs root)";
  const Output out = run(command + " 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("ran\n"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find(" weft INFO verbs: libibverbs.so.1 not loadable: "), std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("; peers on other hosts use tcp\n"), std::string::npos) << out.text;
}

}  // namespace

// weft-info's verbs section, on two soft devices in place of the system's: each device
// with its NUMA node (or "unknown"), and the port the first rank of this host would take
// with the reason, as init says it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "tests/transport/ib/soft_verbs/soft_verbs.h"
#include "tools/info/survey.h"

namespace {

TEST(SurveyVerbs, ShowsEachDevicesNumaNodeAndThePortOfTheFirstRank) {
  // Read when the devices are first listed, below.
  setenv("WEFT_TEST_SOFT_VERBS_DEVICES", "softib0:7,softib1", 1);
  weft::testing::install_soft_verbs();
  const std::string text = weft::info::survey_verbs().to_text();
  // The section's own fields are the top level here: "== name" lines.
  for (const char* needle :
       {"name: softib0\n    numa node: 7\n", "name: softib1\n    numa node: unknown\n",
        "== usable\n  softib0 port 1 (Ethernet, GID 1: RoCE v2, IPv4-mapped, NUMA node 7), "
        "softib1 port 1 (Ethernet, GID 1: RoCE v2, IPv4-mapped)\n",
        "== this process\n  cpus ", "== port of local rank 0\n  softib"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing in\n" << text;
  }
  // On node 7 (no machine here has it) softib0 is far, softib1 of unknown node near.
  if (text.find("on NUMA node 7)") == std::string::npos) {
    EXPECT_NE(text.find("== port of local rank 0\n  softib1:1 (NUMA node unknown), since "),
              std::string::npos)
        << text;
  }
}

}  // namespace

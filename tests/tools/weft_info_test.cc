// weft-info: the report's tree renders as valid JSON and as sectioned text, and the
// binary reports every section (verbs devices, or why there are none, among the
// transports), keeps secrets out, shows a malformed WEFT_IB_HCA instead of failing,
// starts and says why where libibverbs cannot be loaded, and refuses unknown arguments.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/harness/command_output.h"
#include "tests/transport/ib/hidden_libibverbs.h"
#include "tools/info/info_tree.h"
#include "weft/version.h"

namespace {

using weft::info::InfoNode;

constexpr char kWeftInfo[] = "tools/info/weft-info";

using Output = weft::testing::CommandOutput;

Output run(const std::string& command) { return weft::testing::run_command(command); }

TEST(InfoTree, JsonEscapesAndKeepsOrder) {
  InfoNode root;
  InfoNode list = InfoNode::list();
  list.push(1).push("two");
  root.add("b", true).add("a \"quoted\"\n", std::move(list)).add("empty", InfoNode());
  EXPECT_EQ(root.to_json(),
            "{\n  \"b\": true,\n  \"a \\\"quoted\\\"\\n\": [\n    1,\n    \"two\"\n  ],\n"
            "  \"empty\": {}\n}\n");
}

TEST(InfoTree, TextHasSectionsAndIndentedFields) {
  InfoNode section;
  InfoNode item;
  item.add("name", "lo").add("up", true);
  InfoNode items = InfoNode::list();
  items.push(std::move(item));
  section.add("count", 2).add("interfaces", std::move(items)).add("none", InfoNode::list());
  InfoNode root;
  root.add("transports", std::move(section));
  EXPECT_EQ(root.to_text(),
            "== transports\n  count: 2\n  interfaces:\n    - name: lo\n      up: yes\n"
            "  none:\n    (none)\n");
}

TEST(WeftInfo, TextReportHasEverySection) {
  Output out = run(std::string(kWeftInfo) + " 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  for (const char* needle : {"== weft", "version: ", "reduction kernels: ", "== topology",
                             "cores: ", "numa nodes:", "== transports", "shared memory:",
                             "single-copy (process_vm_readv):", "tcp interfaces:", "name: lo",
                             "verbs:", "weft transport: ib: peers on other hosts use it",
                             "library: ", "cuda:", "== environment"}) {
    EXPECT_NE(out.text.find(needle), std::string::npos) << needle << " missing in\n" << out.text;
  }
}

TEST(WeftInfo, JsonIsValidAndHidesSecrets) {
  // python3's json module checks the document; the same script checks its shape.
  const std::string check =
      "import json, sys\n"
      "d = json.load(sys.stdin)\n"
      "assert list(d) == ['weft', 'topology', 'transports', 'environment'], list(d)\n"
      "assert d['weft']['version'] == '" +
      std::string(weft::kVersion) +
      "'\n"
      "assert isinstance(d['weft']['cuda'], bool)\n"
      "assert d['topology']['cores'] >= 1\n"
      "assert any(i['name'] == 'lo' for i in d['transports']['tcp interfaces'])\n"
      // Devices with their ports, and either the usable ports or why there are none.
      "v = d['transports']['verbs']\n"
      "assert isinstance(v['devices'], list), v\n"
      "assert all(isinstance(e['name'], str) and isinstance(e['ports'], list) "
      "for e in v['devices']), v\n"
      "assert ('usable' in v) != ('why none' in v), v\n"
      "assert v.get('usable') or v['why none'], v\n"
      "assert d['environment']['MASTER_PORT'] == '29512'\n"
      "assert d['environment']['WEFT_AUTH_TOKEN'] == '(set; not shown)'\n"
      "assert 'HOME' not in d['environment']\n"
      // Spelled in two parts: this script is in the environment weft-info reports.
      "assert 'hun' + 'ter2' not in json.dumps(d)\n";
  // Through the environment, so that the shell leaves the script's quotes alone.
  setenv("WEFT_INFO_CHECK", check.c_str(), 1);
  Output out = run("MASTER_PORT=29512 WEFT_AUTH_TOKEN=hunter2 " + std::string(kWeftInfo) +
                   " --json | python3 -c \"$WEFT_INFO_CHECK\" 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
}

TEST(WeftInfo, MalformedVerbsSelectionIsShownNotFatal) {
  Output out = run("WEFT_IB_HCA='mlx5_0:x' " + std::string(kWeftInfo) + " 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("why none: WEFT_IB_HCA=mlx5_0:x: port 'x' of mlx5_0 is not a number"),
            std::string::npos)
      << out.text;
}

TEST(WeftInfo, WithoutLibibverbsSaysWhy) {
  const std::string command =
      weft::testing::without_libibverbs("exec " + std::string(kWeftInfo) + " --json");
  if (command.empty()) GTEST_SKIP() << "no private mount namespace here (needs root)";
  setenv("WEFT_INFO_CHECK",
         "import json, sys\n"
         "v = json.load(sys.stdin)['transports']['verbs']\n"
         "assert v['library'].startswith('libibverbs.so.1 not loadable: '), v\n"
         "assert v['why none'] == v['library'], v\n"
         "assert v['devices'] == [], v\n",
         1);
  Output out = run(command + " | python3 -c \"$WEFT_INFO_CHECK\" 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
}

TEST(WeftInfo, VersionAndUnknownArgument) {
  Output version = run(std::string(kWeftInfo) + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.text, "weft-info (weft) " + std::string(weft::kVersion) + "\n");
  Output bad = run(std::string(kWeftInfo) + " --bogus 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.text.find("unknown argument --bogus"), std::string::npos) << bad.text;
}

}  // namespace

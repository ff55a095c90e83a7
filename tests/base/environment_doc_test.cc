// docs/ENVIRONMENT.md and the variables weft reads must agree: every variable in
// weft_variables() has a row in the table, and every row names a variable weft reads.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/env.h"

namespace {

TEST(EnvironmentDoc, ListsExactlyTheVariablesWeftReads) {
  std::ifstream in("docs/ENVIRONMENT.md");
  ASSERT_TRUE(in) << "docs/ENVIRONMENT.md is not among the test's data files";
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> documented;
  std::regex row(R"(\n\| `(WEFT_[A-Z_]+)` \|)");
  std::string doc = text.str();
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) {
    documented.insert((*it)[1]);
  }
  std::set<std::string> read;
  for (const auto& v : weft::base::env::weft_variables()) read.insert(v.name);
  EXPECT_EQ(documented, read);
}

}  // namespace

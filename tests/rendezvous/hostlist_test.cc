// expand_hostlist(), count_hosts() and first_host(): Slurm hostlist syntax, padding, cartesian
// products, the host limit, and the message of every kind of malformed list.
#include "rendezvous/hostlist.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "weft/error.h"

namespace {

using weft::rendezvous::count_hosts;
using weft::rendezvous::expand_hostlist;
using weft::rendezvous::first_host;
using weft::rendezvous::kMaxHosts;
using Hosts = std::vector<std::string>;

// The message of the InvalidArgument that expanding `list` throws; "" when none.
std::string expand_error(const std::string& list, const std::string& what = "SLURM_STEP_NODELIST") {
  try {
    expand_hostlist(list, what);
  } catch (const weft::InvalidArgument& e) {
    EXPECT_EQ(e.code(), weft::ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

TEST(Hostlist, TheExampleFromTheSlurmVariables) {
  EXPECT_EQ(expand_hostlist("node[01-03,7],gpu5,rack[1-2]-n[3-4]", "SLURM_STEP_NODELIST"),
            (Hosts{"node01", "node02", "node03", "node7", "gpu5", "rack1-n3", "rack1-n4",
                   "rack2-n3", "rack2-n4"}));
}

TEST(Hostlist, PlainNamesAndSingleHosts) {
  EXPECT_EQ(expand_hostlist("localhost", "X"), Hosts{"localhost"});
  EXPECT_EQ(expand_hostlist("a,b.example.com,c-1_2", "X"), (Hosts{"a", "b.example.com", "c-1_2"}));
  EXPECT_EQ(expand_hostlist("n[5]", "X"), Hosts{"n5"});
  EXPECT_EQ(expand_hostlist("n[007]", "X"), Hosts{"n007"});
  EXPECT_EQ(expand_hostlist("[1-3]", "X"), (Hosts{"1", "2", "3"}));
}

TEST(Hostlist, PaddingFollowsTheLowerBound) {
  EXPECT_EQ(expand_hostlist("n[08-11]", "X"), (Hosts{"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(expand_hostlist("n[8-11]", "X"), (Hosts{"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(expand_hostlist("n[098-101]", "X"), (Hosts{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(expand_hostlist("n[9-010]", "X"), (Hosts{"n9", "n10"}));
  EXPECT_EQ(expand_hostlist("n[1,02,003]", "X"), (Hosts{"n1", "n02", "n003"}));
}

TEST(Hostlist, CartesianProductInOrder) {
  EXPECT_EQ(expand_hostlist("r[1-2]c[0,5-6]", "X"),
            (Hosts{"r1c0", "r1c5", "r1c6", "r2c0", "r2c5", "r2c6"}));
  EXPECT_EQ(expand_hostlist("a[1-2]b[3-4]c[5-6].d", "X"),
            (Hosts{"a1b3c5.d", "a1b3c6.d", "a1b4c5.d", "a1b4c6.d", "a2b3c5.d", "a2b3c6.d",
                   "a2b4c5.d", "a2b4c6.d"}));
  EXPECT_EQ(expand_hostlist("x[1-2][7-8]", "X"), (Hosts{"x17", "x18", "x27", "x28"}));
}

TEST(Hostlist, OrderAndDuplicatesAreKept) {
  EXPECT_EQ(expand_hostlist("b,a,n[3,1-2],a", "X"), (Hosts{"b", "a", "n3", "n1", "n2", "a"}));
}

TEST(Hostlist, CommasInsideBracketsDoNotSplitItems) {
  Hosts hosts = expand_hostlist("n[1,3],m[2,4]", "X");
  EXPECT_EQ(hosts, (Hosts{"n1", "n3", "m2", "m4"}));
}

TEST(Hostlist, ExactlyTheLimitIsAllowed) {
  Hosts hosts = expand_hostlist("n[1-1000]x[1-1000]", "X");
  ASSERT_EQ(hosts.size(), kMaxHosts);
  EXPECT_EQ(hosts.front(), "n1x1");
  EXPECT_EQ(hosts[1000], "n2x1");
  EXPECT_EQ(hosts.back(), "n1000x1000");
}

TEST(Hostlist, CountHostsIsTheSizeOfTheExpansionAndRefusesTheSameLists) {
  EXPECT_EQ(count_hosts("node[01-03,7],gpu5,rack[1-2]-n[3-4]", "X"), 9u);
  EXPECT_EQ(count_hosts("b,a,n[3,1-2],a", "X"), 6u);
  EXPECT_EQ(count_hosts("n[1-1000]x[1-1000]", "X"), kMaxHosts);
  EXPECT_THROW(count_hosts("n[1-1000]x[1-1000],extra", "X"), weft::InvalidArgument);
  EXPECT_THROW(count_hosts("node[1-", "X"), weft::InvalidArgument);
  EXPECT_THROW(count_hosts("", "X"), weft::InvalidArgument);
}

TEST(Hostlist, MoreThanTheLimitIsRefusedBeforeExpanding) {
  EXPECT_NE(expand_error("n[0-1000000]").find("more than 1000000 hosts"), std::string::npos);
  EXPECT_NE(expand_error("n[1-1000]x[1-1000],extra").find("more than 1000000 hosts"),
            std::string::npos);
  // Would overflow 64 bits if multiplied out naively.
  EXPECT_NE(expand_error("a[0-999999999999999999]b[0-999999999999999999]c[0-99999]")
                .find("more than 1000000 hosts"),
            std::string::npos);
  // The limit counts the whole list, every item together.
  EXPECT_EQ(expand_error("a[1-500000],b[1-500000]"), "");
  EXPECT_NE(expand_error("a[1-500000],b[1-500000],c").find("more than 1000000 hosts"),
            std::string::npos);
}

TEST(Hostlist, MessagesNameTheVariableAndTheList) {
  EXPECT_EQ(expand_error("node[1-", "SLURM_JOB_NODELIST"),
            "SLURM_JOB_NODELIST 'node[1-': '[' at offset 4 is never closed");
  EXPECT_EQ(expand_error("node1]"),
            "SLURM_STEP_NODELIST 'node1]': ']' at offset 5 has no matching '['");
}

TEST(Hostlist, MalformedListsAreRefused) {
  struct Case {
    std::string list;
    std::string fault;
  };
  const std::vector<Case> cases = {
      {"", "the hostlist is empty"},
      {"a,,b", "item 2 (at offset 2) is empty"},
      {",a", "item 1 (at offset 0) is empty"},
      {"a,", "item 2 (at offset 2) is empty"},
      {"n[1-3", "'[' at offset 1 is never closed"},
      {"n[1-[3]]", "'[' at offset 4 is nested inside the '[' at offset 1"},
      {"n]1[", "']' at offset 1 has no matching '['"},
      {"n[]", "the brackets '[]' at offset 1 are empty"},
      {"n[1,,2]", "an entry of '[1,,2]' at offset 1 is empty"},
      {"n[1,]", "an entry of '[1,]' at offset 1 is empty"},
      {"n[3-1]", "the range '3-1' in '[3-1]' at offset 1 has its lower bound above its upper one"},
      {"n[a-b]", "'a-b' in '[a-b]' at offset 1 is not a number or a range lo-hi"},
      {"n[1-x]", "'1-x' in '[1-x]' at offset 1 is not a number or a range lo-hi"},
      {"n[-3]", "'-3' in '[-3]' at offset 1 is not a number or a range lo-hi"},
      {"n[1-]", "'1-' in '[1-]' at offset 1 is not a number or a range lo-hi"},
      {"n[1-2-3]", "'1-2-3' in '[1-2-3]' at offset 1 is not a number or a range lo-hi"},
      {"n[ 1]", "' 1' in '[ 1]' at offset 1 is not a number or a range lo-hi"},
      {"n[1234567890123456789]",
       "the number '1234567890123456789' in '[1234567890123456789]' at offset 1 has more than "
       "18 digits"},
      {"a b", "character 32 at offset 1 is whitespace or a control character"},
      {"a\n", "character 10 at offset 1 is whitespace or a control character"},
  };
  for (const Case& c : cases) {
    std::string expected = "SLURM_STEP_NODELIST '" + c.list + "': " + c.fault;
    EXPECT_EQ(expand_error(c.list), expected) << "list: " << c.list;
    // first_host() accepts exactly what expand_hostlist() accepts.
    EXPECT_THROW(first_host(c.list, "SLURM_STEP_NODELIST"), weft::InvalidArgument)
        << "list: " << c.list;
  }
}

TEST(Hostlist, LongListsAreCutShortInMessages) {
  std::string list = std::string(300, 'a') + ",,";
  std::string message = expand_error(list);
  EXPECT_EQ(message, "SLURM_STEP_NODELIST '" + std::string(200, 'a') + "...': item 2 (at offset " +
                         "301) is empty");
}

TEST(Hostlist, FirstHost) {
  EXPECT_EQ(first_host("node[01-03,7],gpu5", "SLURM_STEP_NODELIST"), "node01");
  EXPECT_EQ(first_host("gpu5,node[1-3]", "X"), "gpu5");
  EXPECT_EQ(first_host("rack[2-3,1]-n[04-05]", "X"), "rack2-n04");
  EXPECT_EQ(first_host("[9-10]", "X"), "9");
  // Far more than the limit in the second item: still refused, as by expand_hostlist().
  EXPECT_THROW(first_host("a,b[0-99999999]", "X"), weft::InvalidArgument);
  // Up to the limit it is answered without building a million strings.
  EXPECT_EQ(first_host("n[000001-1000000]", "X"), "n000001");
}

TEST(Hostlist, TheDefaultVariableName) {
  try {
    expand_hostlist("a,,b");
    FAIL() << "no exception";
  } catch (const weft::InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("SLURM_STEP_NODELIST 'a,,b': ", 0), 0u) << e.what();
  }
}

}  // namespace

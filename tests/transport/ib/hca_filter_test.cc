// WEFT_IB_HCA in NCCL_IB_HCA's syntax: prefixes, exact names (=), exclusion (^), ports;
// a malformed value is refused naming the variable and what is wrong.
#include "transport/ib/hca_filter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "weft/error.h"

namespace {

using weft::transport::ib::HcaFilter;

TEST(HcaFilter, UnsetSelectsEverything) {
  HcaFilter all;
  EXPECT_TRUE(all.selects("mlx5_0", 1));
  EXPECT_TRUE(all.may_select("rxe0"));
  EXPECT_EQ(all.setting(), "");
  unsetenv("WEFT_IB_HCA");
  EXPECT_TRUE(HcaFilter::from_env().selects("anything", 2));
}

TEST(HcaFilter, NamesArePrefixesUnlessExact) {
  HcaFilter prefix = HcaFilter::parse("mlx5");
  EXPECT_TRUE(prefix.selects("mlx5_0", 1));
  EXPECT_TRUE(prefix.selects("mlx5_1", 2));
  EXPECT_FALSE(prefix.selects("mlx4_0", 1));
  EXPECT_FALSE(prefix.may_select("rxe0"));
  EXPECT_EQ(prefix.setting(), "WEFT_IB_HCA=mlx5");

  HcaFilter exact = HcaFilter::parse("=mlx5_1");
  EXPECT_TRUE(exact.selects("mlx5_1", 1));
  EXPECT_FALSE(exact.selects("mlx5_10", 1));
  EXPECT_FALSE(exact.may_select("mlx5_10"));
}

TEST(HcaFilter, PortsNarrowTheirDevice) {
  HcaFilter filter = HcaFilter::parse("mlx5_0:1,mlx5_1");
  EXPECT_TRUE(filter.selects("mlx5_0", 1));
  EXPECT_FALSE(filter.selects("mlx5_0", 2));
  EXPECT_TRUE(filter.selects("mlx5_1", 2));
  EXPECT_TRUE(filter.may_select("mlx5_0"));
}

TEST(HcaFilter, CaretLeavesOut) {
  HcaFilter filter = HcaFilter::parse("^mlx5_1,mlx5_0:2");
  EXPECT_TRUE(filter.excluding());
  EXPECT_FALSE(filter.selects("mlx5_1", 1));
  EXPECT_FALSE(filter.may_select("mlx5_1"));  // left out whole: not even opened
  EXPECT_TRUE(filter.may_select("mlx5_0"));   // only its port 2 is left out
  EXPECT_TRUE(filter.selects("mlx5_0", 1));
  EXPECT_FALSE(filter.selects("mlx5_0", 2));
  EXPECT_TRUE(filter.selects("rxe0", 1));

  HcaFilter exact = HcaFilter::parse("^=mlx5_1");
  EXPECT_FALSE(exact.selects("mlx5_1", 1));
  EXPECT_TRUE(exact.selects("mlx5_10", 1));
}

void expect_refused(const std::string& value, const std::string& problem) {
  try {
    HcaFilter::parse(value);
    ADD_FAILURE() << "WEFT_IB_HCA=" << value << " was accepted";
  } catch (const weft::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("WEFT_IB_HCA=" + value + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
    EXPECT_NE(what.find("name[:port]"), std::string::npos) << what;
  }
}

TEST(HcaFilter, MalformedValuesAreRefusedNamingTheVariable) {
  expect_refused("^", "no device named");
  expect_refused("^=", "no device named");
  expect_refused("mlx5_0,,mlx5_1", "an empty entry");
  expect_refused("mlx5_0,", "an empty entry");
  expect_refused(",mlx5_0", "an empty entry");
  expect_refused(":1", "':1' has no device name");
  expect_refused("mlx5_0:", "port '' of mlx5_0 is not a number in [1, 255]");
  expect_refused("mlx5_0:x", "port 'x' of mlx5_0 is not a number in [1, 255]");
  expect_refused("mlx5_0:0", "port '0' of mlx5_0");
  expect_refused("mlx5_0:256", "port '256' of mlx5_0");
  expect_refused("mlx5_0:1:2", "port '1:2' of mlx5_0");
  expect_refused("=^mlx5_0", "'^mlx5_0' is not a device name (character '^')");
  expect_refused("mlx5_0 ,mlx5_1", "'mlx5_0 ' is not a device name (character ' ')");
}

TEST(HcaFilter, FromEnvRefusesAMalformedValue) {
  setenv("WEFT_IB_HCA", "mlx5_0:one", 1);
  EXPECT_THROW(HcaFilter::from_env(), weft::InvalidArgument);
  setenv("WEFT_IB_HCA", "^mlx5_0:1", 1);
  EXPECT_FALSE(HcaFilter::from_env().selects("mlx5_0", 1));
  unsetenv("WEFT_IB_HCA");
}

}  // namespace

// Credits: every message but a credit message keeps one credit back; credit goes back
// unasked once a quarter of the receives is owed, or at once when the peer may be stuck.
#include "transport/ib/credits.h"

#include <gtest/gtest.h>

namespace weft::transport::ib {
namespace {

TEST(Credits, TheLastCreditIsForReturningCredit) {
  Credits c(8, 4);
  EXPECT_EQ(c.available(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(c.may_send());
    c.use();
  }
  EXPECT_FALSE(c.may_send());
  EXPECT_TRUE(c.may_send_credit());
  c.use();
  EXPECT_FALSE(c.may_send_credit());
  c.peer_reported(6);  // the peer posted two more
  EXPECT_EQ(c.available(), 2u);
  c.peer_reported(5);  // an older report changes nothing
  EXPECT_EQ(c.available(), 2u);
}

TEST(Credits, OwedCreditGoesBackAtAQuarterOfTheReceives) {
  Credits c(8, 8);
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(c.should_return());
    c.consumed();
    c.posted_again();
  }
  EXPECT_EQ(c.owed(), 2u);
  EXPECT_TRUE(c.should_return());  // 2 of 8
  EXPECT_EQ(c.report(), 10u);      // the running total
  EXPECT_EQ(c.owed(), 0u);
  EXPECT_FALSE(c.should_return());
}

TEST(Credits, OneOwedCreditGoesBackWhenThePeerMayBeStuck) {
  Credits c(16, 16);
  for (int i = 0; i < 15; ++i) c.consumed();  // the peer used all but one of its 16
  for (int i = 0; i < 3; ++i) c.posted_again();
  c.report();  // told of these three: it has four
  EXPECT_FALSE(c.should_return());
  c.consumed();
  c.consumed();
  c.consumed();  // down to one
  c.posted_again();
  EXPECT_EQ(c.owed(), 1u);
  EXPECT_TRUE(c.should_return());  // below the threshold of 4, but it cannot send
}

}  // namespace
}  // namespace weft::transport::ib

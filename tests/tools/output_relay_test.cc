#include "tools/weftrun/output_relay.h"

#include <gtest/gtest.h>

#include <string>

namespace weft::weftrun {
namespace {

std::string feed(LineRelay& relay, const std::string& data) {
  std::string out;
  relay.feed(data, &out);
  return out;
}

std::string finish(LineRelay& relay) {
  std::string out;
  relay.finish(&out);
  return out;
}

TEST(LineRelay, PrefixesEveryCompleteLine) {
  LineRelay relay(rank_prefix(2));
  EXPECT_EQ(feed(relay, "hello\nworld\n"), "[2] hello\n[2] world\n");
  EXPECT_FALSE(relay.has_pending());
  EXPECT_EQ(finish(relay), "");
}

TEST(LineRelay, HoldsBackALineUntilItsNewline) {
  LineRelay relay(rank_prefix(0));
  EXPECT_EQ(feed(relay, "hel"), "");
  EXPECT_TRUE(relay.has_pending());
  EXPECT_EQ(feed(relay, "lo"), "");
  EXPECT_EQ(feed(relay, "\nnext"), "[0] hello\n");
  EXPECT_EQ(feed(relay, " line\n"), "[0] next line\n");
}

TEST(LineRelay, KeepsEmptyLines) {
  LineRelay relay(rank_prefix(1));
  EXPECT_EQ(feed(relay, "\n\na\n"), "[1] \n[1] \n[1] a\n");
}

TEST(LineRelay, FinishesAPartialLastLineWithPrefixAndNewline) {
  LineRelay relay(rank_prefix(3));
  EXPECT_EQ(feed(relay, "done\nno newline"), "[3] done\n");
  EXPECT_EQ(finish(relay), "[3] no newline\n");
  EXPECT_EQ(finish(relay), "");
}

TEST(LineRelay, WithoutPrefixBytesPassUnchanged) {
  LineRelay relay("");
  std::string out = feed(relay, "a\nb");
  out += feed(relay, "c\n\nd");
  out += finish(relay);
  EXPECT_EQ(out, "a\nbc\n\nd");
}

TEST(LineRelay, WithoutPrefixStillReleasesOnlyWholeLines) {
  LineRelay relay("");
  EXPECT_EQ(feed(relay, "half"), "");
  EXPECT_EQ(feed(relay, " and half\n"), "half and half\n");
}

TEST(LineRelay, SplitsOverlongLinesIntoPrefixedPieces) {
  LineRelay relay(rank_prefix(0), 4);
  EXPECT_EQ(feed(relay, "abcdefghij"), "[0] abcd\n[0] efgh\n");
  EXPECT_EQ(feed(relay, "k\n"), "[0] ijk\n");
}

TEST(LineRelay, OverlongLinesWithoutPrefixStayByteExact) {
  LineRelay relay("", 4);
  std::string out = feed(relay, "abcdefghij");
  EXPECT_EQ(out, "abcdefgh");
  out += feed(relay, "k\n");
  EXPECT_EQ(out, "abcdefghijk\n");
}

TEST(LineRelay, ALineOfExactlyTheLimitIsNotSplit) {
  LineRelay relay(rank_prefix(0), 4);
  EXPECT_EQ(feed(relay, "abcd"), "");
  EXPECT_EQ(feed(relay, "\n"), "[0] abcd\n");
}

TEST(LineRelay, RankPrefix) {
  EXPECT_EQ(rank_prefix(0), "[0] ");
  EXPECT_EQ(rank_prefix(4095), "[4095] ");
}

}  // namespace
}  // namespace weft::weftrun

// Matcher: first-come matching with wildcards, in both directions.
#include "p2p/matcher.h"

#include <gtest/gtest.h>

namespace {

using weft::p2p::Matcher;
using weft::p2p::OpKind;
using weft::p2p::RequestState;
using weft::p2p::UnexpectedMessage;

auto group() {
  auto g = std::make_shared<weft::p2p::GroupState>();
  g->name = "world";
  g->world_ranks = {0, 1, 2};
  g->rank = 0;
  return std::shared_ptr<const weft::p2p::GroupState>(g);
}

std::shared_ptr<RequestState> recv(int src, int tag) {
  return std::make_shared<RequestState>(OpKind::kRecv, nullptr, group(), weft::Tensor(), src, src,
                                        tag);
}

std::shared_ptr<UnexpectedMessage> message(int src, int tag, uint64_t seq) {
  auto m = std::make_shared<UnexpectedMessage>();
  m->header.src = src;
  m->header.tag = tag;
  m->header.seq = seq;
  return m;
}

TEST(Matcher, ArrivingMessageTakesTheFirstMatchingPostedReceive) {
  Matcher m;
  auto from2 = recv(2, -1), any_tag5 = recv(-1, 5), any = recv(-1, -1);
  m.add_posted(from2);
  m.add_posted(any_tag5);
  m.add_posted(any);
  EXPECT_EQ(m.take_posted(1, 5), any_tag5);  // from2 does not match source 1
  EXPECT_EQ(m.take_posted(2, 5), from2);
  EXPECT_EQ(m.take_posted(1, 7), any);
  EXPECT_EQ(m.take_posted(1, 7), nullptr);
}

TEST(Matcher, PostedReceiveTakesTheOldestMatchingMessage) {
  Matcher m;
  m.add_unexpected(message(1, 3, 0));
  m.add_unexpected(message(2, 3, 0));
  m.add_unexpected(message(1, 4, 1));
  m.add_unexpected(message(1, 3, 2));
  EXPECT_EQ(m.take_unexpected(1, 4)->header.seq, 1u);
  EXPECT_EQ(m.take_unexpected(1, 3)->header.seq, 0u);  // not seq 2: no overtaking
  EXPECT_EQ(m.take_unexpected(-1, -1)->header.src, 2);
  EXPECT_EQ(m.take_unexpected(1, -1)->header.seq, 2u);
  EXPECT_EQ(m.take_unexpected(-1, -1), nullptr);
}

TEST(Matcher, FindingAMessageLeavesItForTheReceiveThatWouldTakeIt) {
  Matcher m;
  auto first = message(1, 3, 0), other_tag = message(1, 4, 1), second = message(1, 3, 2);
  m.add_unexpected(first);
  m.add_unexpected(other_tag);
  m.add_unexpected(second);
  EXPECT_EQ(m.find_unexpected(-1, -1), first.get());
  EXPECT_EQ(m.find_unexpected(-1, -1), first.get());  // still there
  EXPECT_EQ(m.find_unexpected(1, 4), other_tag.get());
  EXPECT_EQ(m.find_unexpected(2, -1), nullptr);
  // Whatever a find reports is what the same filters then take.
  EXPECT_EQ(m.take_unexpected(1, 3), first);
  EXPECT_EQ(m.find_unexpected(1, 3), second.get());
  EXPECT_EQ(m.take_unexpected(1, 3), second);
  EXPECT_EQ(m.find_unexpected(-1, 3), nullptr);
  EXPECT_EQ(m.find_unexpected(-1, -1), other_tag.get());
}

TEST(Matcher, RemovingAndFilteringReceives) {
  Matcher m;
  auto a = recv(1, 1), b = recv(2, 1), c = recv(-1, 1);
  m.add_posted(a);
  m.add_posted(b);
  m.add_posted(c);
  EXPECT_TRUE(m.remove_posted(b.get()));
  EXPECT_FALSE(m.remove_posted(b.get()));
  auto taken = m.take_posted_if([](const RequestState& r) { return r.peer < 0; });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], c);
  EXPECT_EQ(m.posted_count(), 1u);
}

}  // namespace

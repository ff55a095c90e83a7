// Matcher: first-come matching with wildcards, in both directions.
#include "p2p/matcher.h"

#include <gtest/gtest.h>

#include <vector>

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
  m.add_posted(from2.get());
  m.add_posted(any_tag5.get());
  m.add_posted(any.get());
  EXPECT_EQ(m.take_posted(1, 5), any_tag5.get());  // from2 does not match source 1
  EXPECT_EQ(m.take_posted(2, 5), from2.get());
  EXPECT_EQ(m.take_posted(1, 7), any.get());
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

TEST(Matcher, ArrivingMessageTakesTheEarliestPostedOfNamedAndAnySourceReceives) {
  // Receives naming a source and any-source receives wait in queues of their own; the
  // posting order between them still decides.
  Matcher m;
  auto any1 = recv(-1, 1), from1_a = recv(1, 1), any2 = recv(-1, -1), from1_b = recv(1, -1);
  m.add_posted(any1.get());
  m.add_posted(from1_a.get());
  m.add_posted(any2.get());
  m.add_posted(from1_b.get());
  EXPECT_EQ(m.take_posted(1, 1), any1.get());     // posted before from1_a
  EXPECT_EQ(m.take_posted(1, 1), from1_a.get());  // posted before any2
  EXPECT_EQ(m.take_posted(2, 1), any2.get());     // only any-source receives take rank 2's
  EXPECT_EQ(m.take_posted(1, 9), from1_b.get());
  EXPECT_EQ(m.take_posted(1, 1), nullptr);
  EXPECT_EQ(m.posted_count(), 0u);
}

TEST(Matcher, AnySourceReceiveTakesTheEarliestArrivalOfAnySource) {
  Matcher m;
  m.add_unexpected(message(2, 5, 0));
  m.add_unexpected(message(1, 6, 0));
  m.add_unexpected(message(1, 5, 1));
  m.add_unexpected(message(0, 5, 0));
  EXPECT_EQ(m.find_unexpected(-1, 6)->header.src, 1);
  auto first = m.take_unexpected(-1, 5);
  EXPECT_EQ(first->header.src, 2);
  auto second = m.take_unexpected(-1, 5);  // rank 1's tag-5 arrived before rank 0's
  EXPECT_EQ(second->header.src, 1);
  EXPECT_EQ(second->header.seq, 1u);
  EXPECT_EQ(m.take_unexpected(-1, -1)->header.tag, 6);
  EXPECT_EQ(m.take_unexpected(0, 5)->header.src, 0);
  EXPECT_EQ(m.find_unexpected(-1, -1), nullptr);
}

TEST(Matcher, QueuesKeepTheirOrderAcrossReuse) {
  // Many rounds through the queues' reused storage, with removals from the middle.
  Matcher m;
  for (int round = 0; round < 100; ++round) {
    std::vector<std::shared_ptr<RequestState>> posted;
    for (int i = 0; i < 1 + round % 13; ++i) {
      posted.push_back(recv(i % 3 == 0 ? -1 : 1, i));
      m.add_posted(posted.back().get());
    }
    if (posted.size() > 2) {
      EXPECT_TRUE(m.remove_posted(posted[1].get()));
    }
    for (size_t i = 0; i < posted.size(); ++i) {
      if (i == 1 && posted.size() > 2) continue;
      EXPECT_EQ(m.take_posted(1, static_cast<int>(i)), posted[i].get()) << round << " " << i;
    }
    EXPECT_EQ(m.posted_count(), 0u);
  }
}

TEST(Matcher, RemovingAndFilteringReceives) {
  Matcher m;
  auto a = recv(1, 1), b = recv(2, 1), c = recv(-1, 1);
  m.add_posted(a.get());
  m.add_posted(b.get());
  m.add_posted(c.get());
  EXPECT_TRUE(m.remove_posted(b.get()));
  EXPECT_FALSE(m.remove_posted(b.get()));
  auto taken = m.take_posted_if([](const RequestState& r) { return r.peer < 0; });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], c.get());
  EXPECT_FALSE(c->in_posted_queue);
  EXPECT_TRUE(a->in_posted_queue);
  EXPECT_EQ(m.posted_count(), 1u);
}

}  // namespace

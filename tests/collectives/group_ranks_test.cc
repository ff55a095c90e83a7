// Ranks as in the original torch.distributed package: an int root, src or dst is a world
// rank in every group, GroupRank{r} a group rank; receives and probes report both; a
// world rank outside the group is refused naming both numberings; a process outside a
// group returns at once from its collectives; new_group() is the world; all_gather,
// gather and scatter take lists of tensors. The group {1, 3} of four ranks tells the
// numberings apart: its rank 1 is world rank 3.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/harness/multiprocess.h"
#include "weft/weft.h"

namespace weft::testing {
namespace {

// The InvalidArgument message of `call`, or a failure when it succeeds.
template <class Call>
std::string refusal(Call&& call) {
  try {
    call();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "the call succeeded";
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(GroupRanks, RootsAreWorldRanksAndGroupRankNamesTheGroupsOwn) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    Group odd = new_group({1, 3});
    // The non-members call everything too: they take no part.
    std::vector<int32_t> v{rank * 10};
    broadcast(view(v), 1, odd);
    if (odd.is_member()) {
      EXPECT_EQ(v[0], 10);
    }
    v[0] = rank * 10;
    broadcast(view(v), 3, odd);
    if (odd.is_member()) {
      EXPECT_EQ(v[0], 30);
    }
    v[0] = rank * 10;
    broadcast(view(v), GroupRank{1}, odd);  // odd's rank 1: world rank 3
    if (odd.is_member()) {
      EXPECT_EQ(v[0], 30);
    }
    v[0] = rank * 10;
    ibroadcast(view(v), GroupRank{0}, odd).wait();
    if (odd.is_member()) {
      EXPECT_EQ(v[0], 10);
    }
    if (!odd.is_member()) {
      EXPECT_EQ(v[0], rank * 10) << "a non-member's tensor changed";
    }

    std::vector<int32_t> sum{rank};
    reduce(view(sum), 3, ReduceOp::kSum, odd);
    if (rank == 3) {
      EXPECT_EQ(sum[0], 4);
    }
    if (rank == 1) {
      EXPECT_EQ(sum[0], 1) << "a non-root's tensor changed";
    }
    sum[0] = rank;
    ireduce(view(sum), GroupRank{0}, ReduceOp::kSum, odd).wait();
    if (rank == 1) {
      EXPECT_EQ(sum[0], 4);
    }

    std::vector<int32_t> mine{rank}, gathered(2, -1);
    gather(view(mine), view(gathered), 3, odd);
    if (rank == 3) {
      EXPECT_EQ(gathered, (std::vector<int32_t>{1, 3}));
    }
    if (rank == 1) {
      EXPECT_EQ(gathered, (std::vector<int32_t>{-1, -1}));
    }
    gathered.assign(2, -1);
    igather(view(mine), view(gathered), GroupRank{0}, odd).wait();
    if (rank == 1) {
      EXPECT_EQ(gathered, (std::vector<int32_t>{1, 3}));
    }

    std::vector<int32_t> parts{100 + rank, 200 + rank}, part{-1};
    scatter(view(parts), view(part), 1, odd);
    if (rank == 1) {
      EXPECT_EQ(part[0], 101);
    }
    if (rank == 3) {
      EXPECT_EQ(part[0], 201);
    }
    iscatter(view(parts), view(part), GroupRank{1}, odd).wait();
    if (rank == 1) {
      EXPECT_EQ(part[0], 103);
    }
    if (rank == 3) {
      EXPECT_EQ(part[0], 203);
    }

    const std::vector<uint64_t> counts{1, 1};
    gathered.assign(2, -1);
    gatherv(view(mine), view(gathered), counts, 1, {}, odd);
    if (rank == 1) {
      EXPECT_EQ(gathered, (std::vector<int32_t>{1, 3}));
    }
    scatterv(view(parts), view(part), counts, GroupRank{0}, {}, odd);
    if (rank == 3) {
      EXPECT_EQ(part[0], 201);
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(GroupRanks, PeersAreWorldRanksAndReceivesReportBothNumberings) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    Group odd = new_group({1, 3});
    EXPECT_EQ(odd.rank_of(3), 1);
    EXPECT_EQ(odd.rank_of(1), 0);
    EXPECT_EQ(odd.rank_of(2), -1);
    EXPECT_EQ(odd.world_rank(odd.rank_of(3)), 3);
    EXPECT_TRUE(contains(refusal([&] { odd.rank_of(4); }), "world rank 4 is outside [0, 4)"));
    int32_t value = 0;
    const Tensor t = view(std::span(&value, 1));
    if (rank == 1) {
      value = 7;
      send(t, 3, 5, odd);
      value = 8;
      send(t, GroupRank{1}, 6, odd);
      value = 9;
      isend(t, 3, 7, odd).wait();
    } else if (rank == 3) {
      ProbeResult p = probe(kAnySource, 5, odd);
      EXPECT_EQ(p.source, 1);
      EXPECT_EQ(p.group_source, 0);
      RecvResult r = recv(t, 1, 5, odd);
      EXPECT_EQ(value, 7);
      EXPECT_EQ(r.source, 1);
      EXPECT_EQ(r.group_source, 0);
      EXPECT_EQ(static_cast<int>(r), 1);
      Request q = irecv(t, kAnySource, 6, odd);
      q.wait();
      EXPECT_EQ(value, 8);
      EXPECT_EQ(q.source(), 1);
      EXPECT_EQ(q.group_source(), 0);
      RecvResult g = recv(t, GroupRank{0}, 7, odd);
      EXPECT_EQ(value, 9);
      EXPECT_EQ(g.source, 1);
      EXPECT_EQ(g.group_source, 0);
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(GroupRanks, WorldRanksOutsideTheGroupAreRefusedNamingBothNumberings) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    Group odd = new_group({1, 3});
    std::vector<int32_t> v{rank};
    if (odd.is_member()) {
      const std::string who = "rank " + std::to_string(odd.rank()) + " of group ";
      const std::string world = "world rank " + std::to_string(rank) + ")";
      std::string m = refusal([&] { broadcast(view(v), 2, odd); });
      EXPECT_TRUE(contains(m, "broadcast (" + who)) << m;
      EXPECT_TRUE(contains(m, world)) << m;
      EXPECT_TRUE(contains(m, "root 2 (world rank) is not a member of group")) << m;
      EXPECT_TRUE(contains(m, "GroupRank")) << m;
      m = refusal([&] { reduce(view(v), 0, ReduceOp::kSum, odd); });
      EXPECT_TRUE(contains(m, "root 0 (world rank) is not a member")) << m;
      m = refusal([&] { broadcast(view(v), GroupRank{2}, odd); });
      EXPECT_TRUE(contains(m, "root GroupRank{2} is outside [0, 2)")) << m;
      m = refusal([&] { send(view(v), 2, 0, odd); });
      EXPECT_TRUE(contains(m, "send (" + who)) << m;
      EXPECT_TRUE(contains(m, "dst 2 (world rank) is not a member of group")) << m;
      m = refusal([&] { recv(view(v), 0, 0, odd); });
      EXPECT_TRUE(contains(m, "src 0 (world rank) is not a member of group")) << m;
      m = refusal([&] { isend(view(v), GroupRank{-1}, 0, odd); });
      EXPECT_TRUE(contains(m, "dst GroupRank{-1} is outside [0, 2)")) << m;
      // Refused before anything was sent: the group still works.
      broadcast(view(v), 3, odd);
      EXPECT_EQ(v[0], 3);
    } else {
      // Outside the group: collectives return at once, point-to-point is refused.
      broadcast(view(v), 2, odd);
      EXPECT_TRUE(ibarrier(odd).is_completed());
      EXPECT_TRUE(contains(refusal([&] { send(view(v), 1, 0, odd); }),
                           "this process is not a member of the group"));
    }
    barrier();
    destroy_process_group();
  }));
}

TEST(GroupRanks, NewGroupWithNoRanksIsTheWorld) {
  expect_all_succeeded(run_ranks(3, [](int rank) {
    init_process_group();
    Group all = new_group();
    Group also = new_group({});
    for (const Group* g : {&all, &also}) {
      EXPECT_EQ(g->size(), 3);
      EXPECT_EQ(g->rank(), rank);
      for (int r = 0; r < 3; ++r) EXPECT_EQ(g->world_rank(r), r);
    }
    std::vector<int32_t> v{rank + 1};
    all_reduce(view(v), ReduceOp::kSum, all);
    EXPECT_EQ(v[0], 6);
    all_reduce(view(v), ReduceOp::kSum, also);
    EXPECT_EQ(v[0], 18);
    destroy_process_group();
  }));
}

TEST(GroupRanks, ListFormsOfAllGatherGatherAndScatter) {
  expect_all_succeeded(run_ranks(4, [](int rank) {
    init_process_group();
    Group odd = new_group({3, 1});  // group rank 0 is world rank 3
    std::vector<int64_t> mine{rank, 10 * rank};
    std::vector<int64_t> a(2, -1), b(2, -1);
    std::vector<Tensor> list{view(a), view(b)};

    all_gather(list, view(mine), odd);
    if (odd.is_member()) {
      EXPECT_EQ(a, (std::vector<int64_t>{3, 30}));
      EXPECT_EQ(b, (std::vector<int64_t>{1, 10}));
    }
    a.assign(2, -1);
    b.assign(2, -1);
    Request r = iall_gather(list, view(mine), odd);
    r.wait();
    if (odd.is_member()) {
      EXPECT_EQ(a, (std::vector<int64_t>{3, 30})) << "copied out only after completion";
      EXPECT_EQ(b, (std::vector<int64_t>{1, 10}));
    } else {
      EXPECT_EQ(a, (std::vector<int64_t>{-1, -1}));
    }

    a.assign(2, -1);
    b.assign(2, -1);
    gather(view(mine), 1, rank == 1 ? std::span<const Tensor>(list) : std::span<const Tensor>(),
           odd);
    if (rank == 1) {
      EXPECT_EQ(a, (std::vector<int64_t>{3, 30}));
      EXPECT_EQ(b, (std::vector<int64_t>{1, 10}));
    }
    a.assign(2, -1);
    b.assign(2, -1);
    igather(view(mine), GroupRank{0},
            rank == 3 ? std::span<const Tensor>(list) : std::span<const Tensor>(), odd)
        .wait();
    if (rank == 3) {
      EXPECT_EQ(b, (std::vector<int64_t>{1, 10}));
    }

    a = {100 + rank, 0};
    b = {200 + rank, 0};
    std::vector<int64_t> got(2, -1);
    scatter(view(got), 3, rank == 3 ? std::span<const Tensor>(list) : std::span<const Tensor>(),
            odd);
    if (rank == 3) {
      EXPECT_EQ(got, (std::vector<int64_t>{103, 0}));
    }
    if (rank == 1) {
      EXPECT_EQ(got, (std::vector<int64_t>{203, 0}));
    }
    iscatter(view(got), GroupRank{1},
             rank == 1 ? std::span<const Tensor>(list) : std::span<const Tensor>(), odd)
        .wait();
    if (rank == 3) {
      EXPECT_EQ(got, (std::vector<int64_t>{101, 0}));
    }
    if (rank == 1) {
      EXPECT_EQ(got, (std::vector<int64_t>{201, 0}));
    }

    // Bad lists are refused before anything is sent, naming the list's index.
    if (odd.is_member()) {
      std::vector<Tensor> one{view(a)};
      std::string m = refusal([&] { all_gather(one, view(mine), odd); });
      EXPECT_TRUE(contains(m, "all_gather (rank " + std::to_string(odd.rank()))) << m;
      EXPECT_TRUE(contains(m, "tensor_list has 1 tensors for a group of 2")) << m;
      std::vector<int64_t> short_one(1);
      std::vector<Tensor> uneven{view(a), view(short_one)};
      m = refusal([&] { all_gather(uneven, view(mine), odd); });
      EXPECT_TRUE(contains(m, "tensor_list[1] has 1 elements, expected 2")) << m;
      std::vector<int32_t> narrow(2);
      std::vector<Tensor> mixed{view(narrow), view(b)};
      m = refusal([&] { gather(view(mine), rank, mixed, odd); });
      EXPECT_TRUE(contains(m, "gather_list[0] is int32 but tensor is int64")) << m;
      m = refusal([&] { scatter(view(got), GroupRank{odd.rank()}, one, odd); });
      EXPECT_TRUE(contains(m, "scatter_list has 1 tensors for a group of 2")) << m;
    }
    barrier();
    destroy_process_group();
  }));
}

}  // namespace
}  // namespace weft::testing

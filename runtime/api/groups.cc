// new_group, split_group, subgroup and destroy_group.
#include <algorithm>
#include <string>
#include <vector>

#include "base/fnv_hash.h"
#include "runtime/api/collective_call.h"
#include "runtime/context.h"
#include "runtime/init/arena_setup.h"
#include "weft/collectives.h"
#include "weft/p2p.h"

namespace weft {
namespace {

// What new_group's ranks compare to see that they were given the same list.
uint64_t fingerprint(const std::vector<int>& ranks) {
  base::Fnv1a h;
  h.add(ranks.size());
  for (int r : ranks) h.add(r);
  return h.value();
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i == 8) return s + ",...";
    s += (i ? "," : "") + std::to_string(ranks[i]);
  }
  return s;
}

// The engine refuses comm ids from here on (and keeps a table slot for each below).
constexpr uint64_t kCommIdLimit = 1u << 20;

base::Deadline deadline_after(const runtime::Context& c, Timeout timeout) {
  return base::Deadline::after(timeout.count() >= 0 ? timeout : c.timeout);
}

// Fails, on every rank that learnt `base`, when the ids run past the engine's limit.
void check_comm_ids(runtime::Context& c, uint64_t base, uint64_t count, const char* op) {
  if (base + 2 * count > kCommIdLimit) {
    throw InvalidArgument(std::string(op) + " (rank " + std::to_string(c.rank) +
                          "): this job has created " + std::to_string(kCommIdLimit / 2) +
                          " groups, the most it can; destroyed groups' ids are not reused");
  }
}

// `count` fresh comm ids for groups made among the members of `over`, the same on
// every member: its rank 0 draws them and broadcasts them over `over`.
uint32_t draw_comm_ids(runtime::Context& c, const Group& over, uint64_t count, Timeout timeout,
                       const char* op) {
  std::vector<uint64_t> base{0};
  if (over.rank() == 0)
    base[0] = runtime::take_fresh_comm_ids(c, count, deadline_after(c, timeout));
  broadcast(view(base), GroupRank{0}, over, timeout);
  check_comm_ids(c, base[0], count, op);
  return static_cast<uint32_t>(base[0]);
}

// subgroup's messages travel in the parent's collectives space, where no user receive
// (and so no wildcard) ever looks, with tags from the top of the range: a collective's
// tag is the count of the parent's collectives before it, which reaches these only
// after 2^31 - 2^24 collectives on one group.
constexpr int kSubgroupTagBase = 0x7f000000;
constexpr int kSubgroupTagMask = 0x00ffffff;
constexpr uint64_t kSubgroupMagic = 0x5745465453554247;  // "WEFTSUBG"

}  // namespace

Group new_group(const std::vector<int>& given, Timeout timeout) {
  runtime::Context& c = runtime::context("new_group");
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("new_group (rank " + std::to_string(c.rank) + "): " + what);
  };
  // No ranks means every world rank, as in the original package.
  std::vector<int> every;
  if (given.empty()) {
    every.resize(static_cast<size_t>(c.world_size));
    for (int r = 0; r < c.world_size; ++r) every[static_cast<size_t>(r)] = r;
  }
  const std::vector<int>& ranks = given.empty() ? every : given;
  std::vector<bool> seen(c.world_size, false);
  for (size_t i = 0; i < ranks.size(); ++i) {
    int r = ranks[i];
    if (r < 0 || r >= c.world_size) {
      fail("ranks[" + std::to_string(i) + "] = " + std::to_string(r) + " is outside [0, " +
           std::to_string(c.world_size) + ")");
    }
    if (seen[r]) fail("rank " + std::to_string(r) + " appears twice in ranks");
    seen[r] = true;
  }
  // Every rank must pass the same list: compare fingerprints over the world (this is
  // a world collective, as in torch.distributed).
  std::vector<uint64_t> mine{fingerprint(ranks)}, everyone(c.world_size);
  all_gather(view(mine), view(everyone), Group(), timeout);
  std::vector<int> differing;
  for (int r = 0; r < c.world_size; ++r) {
    if (everyone[r] != everyone[0]) differing.push_back(r);
  }
  if (!differing.empty()) {
    throw DesyncError("new_group (rank " + std::to_string(c.rank) +
                      "): the ranks passed different rank lists (this rank: " + rank_list(ranks) +
                      "); world ranks " + rank_list(differing) + " disagree with rank 0");
  }
  uint32_t comm = draw_comm_ids(c, Group(), 1, timeout, "new_group");
  int my_rank = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == c.rank) my_rank = static_cast<int>(i);
  }
  std::string name = "group" + std::to_string(comm / 2) + "{" + rank_list(ranks) + "}";
  std::shared_ptr<collectives::SharedArena> arena;
  if (my_rank >= 0)
    arena = runtime::establish_arena(c, comm, ranks, my_rank, deadline_after(c, timeout));
  return runtime::Handles::group(runtime::make_group_record(comm, std::move(name), ranks, my_rank,
                                                            c.timeout, std::move(arena),
                                                            runtime::host_layout_of(c, ranks)));
}

std::optional<Group> split_group(const Group& parent, int color, int key, Timeout timeout) {
  runtime::Context& c = runtime::context("split_group");
  if (!parent.is_member()) {
    throw InvalidArgument("split_group (rank " + std::to_string(c.rank) +
                          "): this process is not a member of the parent group");
  }
  const int n = parent.size();
  std::vector<int64_t> mine{color, key}, everyone(2 * static_cast<size_t>(n));
  all_gather(view(mine), view(everyone), parent, timeout);
  // The distinct colors, in the order of the first parent rank that chose each.
  std::vector<int64_t> colors;
  for (int r = 0; r < n; ++r) {
    int64_t chosen = everyone[2 * static_cast<size_t>(r)];
    if (chosen >= 0 && std::find(colors.begin(), colors.end(), chosen) == colors.end()) {
      colors.push_back(chosen);
    }
  }
  base::Deadline deadline = deadline_after(c, timeout);
  uint32_t base =
      colors.empty() ? 0 : draw_comm_ids(c, parent, colors.size(), timeout, "split_group");
  if (color < 0) return std::nullopt;
  size_t index =
      static_cast<size_t>(std::find(colors.begin(), colors.end(), color) - colors.begin());
  uint32_t comm = base + static_cast<uint32_t>(2 * index);

  std::vector<int> chosen;  // parent ranks with this color, in (key, parent rank) order
  for (int r = 0; r < n; ++r) {
    if (everyone[2 * static_cast<size_t>(r)] == color) chosen.push_back(r);
  }
  std::stable_sort(chosen.begin(), chosen.end(), [&](int a, int b) {
    return everyone[2 * static_cast<size_t>(a) + 1] < everyone[2 * static_cast<size_t>(b) + 1];
  });
  std::vector<int> world_ranks;
  int my_rank = -1;
  for (int r : chosen) {
    if (r == parent.rank()) my_rank = static_cast<int>(world_ranks.size());
    world_ranks.push_back(parent.world_rank(r));
  }
  std::string name = "split" + std::to_string(comm) + "{" + rank_list(world_ranks) + "}";
  auto arena = runtime::establish_arena(c, comm, world_ranks, my_rank, deadline);
  return runtime::Handles::group(
      runtime::make_group_record(comm, std::move(name), world_ranks, my_rank, c.timeout,
                                 std::move(arena), runtime::host_layout_of(c, world_ranks)));
}

Group subgroup(const Group& parent, const std::vector<int>& parent_ranks, int tag,
               Timeout timeout) {
  runtime::Context& c = runtime::context("subgroup");
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("subgroup (rank " + std::to_string(c.rank) + "): " + what);
  };
  const std::shared_ptr<const runtime::GroupRecord>& record =
      runtime::resolve_group(parent, "subgroup");
  const p2p::GroupState* state = record->messages.get();
  if (state->rank < 0) fail("this process is not a member of the parent group");
  if (tag < 0) fail("tag " + std::to_string(tag) + " is negative");
  if (parent_ranks.empty()) fail("parent_ranks is empty");
  const int n = static_cast<int>(parent_ranks.size());
  std::vector<bool> seen(static_cast<size_t>(state->size()), false);
  std::vector<int> world_ranks;
  int my_rank = -1;
  for (int i = 0; i < n; ++i) {
    int r = parent_ranks[static_cast<size_t>(i)];
    if (r < 0 || r >= state->size()) {
      fail("parent_ranks[" + std::to_string(i) + "] = " + std::to_string(r) + " is outside [0, " +
           std::to_string(state->size()) + ") of group " + state->name);
    }
    if (seen[static_cast<size_t>(r)])
      fail("rank " + std::to_string(r) + " appears twice in parent_ranks");
    seen[static_cast<size_t>(r)] = true;
    if (r == state->rank) my_rank = i;
    world_ranks.push_back(state->world_ranks[static_cast<size_t>(r)]);
  }
  if (my_rank < 0) {
    fail("this process (rank " + std::to_string(state->rank) + " of group " + state->name +
         ") is not in parent_ranks; only the new group's members call subgroup");
  }
  // The new group's first member draws its comm ids and tells the others, over the
  // parent and with messages only between the members: the rest of the parent is free.
  // A handle whose point-to-point messages travel in the parent's collectives space.
  const std::shared_ptr<const p2p::GroupState>& collectives_space = record->collectives.space();
  Group space = runtime::Handles::group(std::make_shared<const runtime::GroupRecord>(
      collectives_space, collectives_space, nullptr, nullptr));
  const int wire_tag = kSubgroupTagBase | (tag & kSubgroupTagMask);
  const uint64_t list = fingerprint(world_ranks);
  std::vector<uint64_t> message{kSubgroupMagic, list, static_cast<uint64_t>(tag), 0};
  if (my_rank == 0) {
    message[3] = runtime::take_fresh_comm_ids(c, 1, deadline_after(c, timeout));
    std::vector<Request> sends;
    for (int i = 1; i < n; ++i) {
      sends.push_back(
          isend(view(message), GroupRank{parent_ranks[static_cast<size_t>(i)]}, wire_tag, space));
    }
    for (const Request& r : sends) r.wait(timeout);
  } else {
    recv(view(message), GroupRank{parent_ranks[0]}, wire_tag, space, timeout);
    if (message[0] != kSubgroupMagic || message[1] != list ||
        message[2] != static_cast<uint64_t>(tag)) {
      throw DesyncError("subgroup (rank " + std::to_string(c.rank) +
                        "): the members disagree: this rank passed tag " + std::to_string(tag) +
                        " and parent ranks " + rank_list(parent_ranks) + ", and parent rank " +
                        std::to_string(parent_ranks[0]) +
                        " (the first of them) passed another tag or list");
    }
  }
  check_comm_ids(c, message[3], 1, "subgroup");
  auto comm = static_cast<uint32_t>(message[3]);
  base::Deadline deadline = deadline_after(c, timeout);
  std::string name = "subgroup" + std::to_string(comm) + "{" + rank_list(world_ranks) + "}";
  auto arena = runtime::establish_arena(c, comm, world_ranks, my_rank, deadline);
  return runtime::Handles::group(
      runtime::make_group_record(comm, std::move(name), world_ranks, my_rank, c.timeout,
                                 std::move(arena), runtime::host_layout_of(c, world_ranks)));
}

void destroy_group(const Group& group) {
  const std::shared_ptr<const runtime::GroupRecord>& record = runtime::Handles::record(group);
  if (!record) {
    throw InvalidArgument("destroy_group (rank " +
                          std::to_string(runtime::context("destroy_group").rank) +
                          "): the world group lasts until destroy_process_group");
  }
  runtime::resolve_group(group, "destroy_group");  // refuses one destroyed already
  record->destroyed.store(true);
}

}  // namespace weft

// new_group and destroy_group.
#include <algorithm>
#include <string>
#include <vector>

#include "core/api/collective_call.h"
#include "core/base/fnv_hash.h"
#include "core/init/arena_setup.h"
#include "core/init/context.h"
#include "weft/collectives.h"

namespace weft {
namespace {

// What new_group's ranks compare to see that they were given the same list.
uint64_t fingerprint(const std::vector<int>& ranks) {
  Fnv1a h;
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

// `count` fresh comm ids (two per group: messages and collectives) for groups made
// among the members of `over`, the same on every member. They must be unique in the
// whole job while only `over`'s members take part, so its rank 0 draws them from the
// job's store (a world of one has no store, and nobody to disagree with).
uint32_t draw_comm_ids(core::Context& c, const Group& over, uint64_t count, Timeout timeout,
                       const char* op) {
  std::vector<uint64_t> base{0};
  if (over.rank() == 0) {
    Deadline deadline = Deadline::after(timeout.count() >= 0 ? timeout : c.timeout);
    int64_t block = 2 * static_cast<int64_t>(count);
    base[0] = c.store ? static_cast<uint64_t>(c.store->add("comm_ids", block, deadline) - block + 2)
                      : c.next_comm.fetch_add(static_cast<uint32_t>(block));
  }
  broadcast(view(base), 0, over, timeout);
  if (base[0] + 2 * count > kCommIdLimit) {
    throw InvalidArgument(std::string(op) + " (rank " + std::to_string(c.rank) +
                          "): this job has created " + std::to_string(kCommIdLimit / 2) +
                          " groups, the most it can; destroyed groups' ids are not reused");
  }
  return static_cast<uint32_t>(base[0]);
}

}  // namespace

Group new_group(const std::vector<int>& ranks, Timeout timeout) {
  core::Context& c = core::context("new_group");
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("new_group (rank " + std::to_string(c.rank) + "): " + what);
  };
  if (ranks.empty()) fail("ranks is empty");
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
  auto state = detail::make_group_state(comm, std::move(name), ranks, my_rank, c.timeout);
  if (my_rank >= 0) {
    Deadline deadline = Deadline::after(timeout.count() >= 0 ? timeout : c.timeout);
    state->arena = core::establish_arena(c, comm, ranks, my_rank, deadline);
  }
  return Group(std::move(state));
}

std::optional<Group> split_group(const Group& parent, int color, int key, Timeout timeout) {
  core::Context& c = core::context("split_group");
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
  Deadline deadline = Deadline::after(timeout.count() >= 0 ? timeout : c.timeout);
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
  auto state = detail::make_group_state(comm, std::move(name), world_ranks, my_rank, c.timeout);
  state->arena = core::establish_arena(c, comm, world_ranks, my_rank, deadline);
  return Group(std::move(state));
}

void destroy_group(const Group& group) {
  if (!group.state()) {
    throw InvalidArgument("destroy_group (rank " +
                          std::to_string(core::context("destroy_group").rank) +
                          "): the world group lasts until destroy_process_group");
  }
  core::resolve_group(group, "destroy_group");  // refuses one destroyed already
  group.state()->destroyed.store(true);
}

const char* reduce_op_name(ReduceOp op) {
  static const char* const names[kNumReduceOps] = {"sum", "prod", "min", "max",
                                                   "avg", "band", "bor", "bxor"};
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumReduceOps ? names[i] : "invalid";
}

}  // namespace weft

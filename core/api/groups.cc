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
  uint32_t comm = c.next_comm.fetch_add(2);
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

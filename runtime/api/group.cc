#include "weft/group.h"

#include "runtime/context.h"
#include "weft/error.h"

namespace weft {

int Group::rank() const { return runtime::resolve_group(*this, "Group::rank")->rank(); }

int Group::size() const { return runtime::resolve_group(*this, "Group::size")->size(); }

int Group::world_rank(int group_rank) const {
  const auto& g = runtime::resolve_group(*this, "Group::world_rank");
  if (group_rank < 0 || group_rank >= g->size()) {
    throw InvalidArgument("Group::world_rank: rank " + std::to_string(group_rank) +
                          " is outside [0, " + std::to_string(g->size()) + ") of group " +
                          g->name());
  }
  return g->world_ranks()[group_rank];
}

int Group::rank_of(int world_rank) const {
  const auto& g = runtime::resolve_group(*this, "Group::rank_of");
  const int world_size = runtime::context("Group::rank_of").world_size;
  if (world_rank < 0 || world_rank >= world_size) {
    throw InvalidArgument("Group::rank_of: world rank " + std::to_string(world_rank) +
                          " is outside [0, " + std::to_string(world_size) + ")");
  }
  return g->messages->rank_of(world_rank);
}

}  // namespace weft

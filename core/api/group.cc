#include "weft/group.h"

#include "core/init/context.h"
#include "core/p2p/group_state.h"
#include "weft/error.h"

namespace weft {

int Group::rank() const { return core::resolve_group(*this, "Group::rank")->rank; }

int Group::size() const { return core::resolve_group(*this, "Group::size")->size(); }

int Group::world_rank(int group_rank) const {
  auto g = core::resolve_group(*this, "Group::world_rank");
  if (group_rank < 0 || group_rank >= g->size()) {
    throw InvalidArgument("Group::world_rank: rank " + std::to_string(group_rank) +
                          " is outside [0, " + std::to_string(g->size()) + ") of group " + g->name);
  }
  return g->world_ranks[group_rank];
}

}  // namespace weft

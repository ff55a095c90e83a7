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

}  // namespace weft

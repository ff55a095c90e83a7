// GroupState: a group as point-to-point messaging sees it: a matching space (comm id)
// and the world ranks of its members. Immutable once built. Each weft::Group uses two
// of them, one for its point-to-point messages and one for its collectives
// (runtime/group_record.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weft/timeout.h"

namespace weft::p2p {

struct GroupState {
  uint32_t comm = 0;             // matching space of the group's messages; 0 is the world
  std::string name;              // "world", for messages
  std::vector<int> world_ranks;  // group rank -> world rank
  int rank = -1;                 // this process's group rank; -1 if not a member
  Timeout timeout{};             // default timeout of operations in this group

  int size() const { return static_cast<int>(world_ranks.size()); }
  // The group rank of world rank `world`, or -1 when that process is not a member.
  int rank_of(int world) const {
    // The world group, and any group whose member `world` sits at that same place.
    if (world >= 0 && world < size() && world_ranks[world] == world) return world;
    for (int r = 0; r < size(); ++r) {
      if (world_ranks[r] == world) return r;
    }
    return -1;
  }
};

inline std::shared_ptr<const GroupState> make_group_state(uint32_t comm, std::string name,
                                                          std::vector<int> world_ranks, int rank,
                                                          Timeout timeout) {
  return std::make_shared<const GroupState>(
      GroupState{comm, std::move(name), std::move(world_ranks), rank, timeout});
}

}  // namespace weft::p2p

// GroupState: what a weft::Group handle refers to. Immutable once built, except for the
// counter of its collectives and its destroyed flag.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/timeout.h"

namespace weft::core {
class SharedArena;
}

namespace weft::detail {

struct GroupState {
  uint32_t comm = 0;             // matching space of the group's messages; 0 is the world
  std::string name;              // "world", for messages
  std::vector<int> world_ranks;  // group rank -> world rank
  int rank = -1;                 // this process's group rank; -1 if not a member
  Timeout timeout{};             // default timeout of operations in this group

  // The matching space of the group's collectives (comm + 1): apart from its
  // point-to-point messages, so that a user's receive never takes a collective's
  // message. Null in that space itself.
  std::shared_ptr<const GroupState> collectives;
  // Tags of successive collectives, so that collectives in flight at once (a blocking
  // one while an asynchronous one runs) never take each other's messages. Taken in
  // call order, which every rank shares.
  mutable std::atomic<uint32_t> next_collective{0};
  mutable std::atomic<bool> destroyed{false};
  // Where the group's intra-node collectives work when all its members share memory
  // (core/collectives/arena); null otherwise. Set before the group is handed out.
  std::shared_ptr<core::SharedArena> arena;

  int size() const { return static_cast<int>(world_ranks.size()); }
};

// A group using comm ids `comm` (point-to-point) and `comm + 1` (collectives).
inline std::shared_ptr<GroupState> make_group_state(uint32_t comm, std::string name,
                                                    std::vector<int> world_ranks, int rank,
                                                    Timeout timeout) {
  auto group = std::make_shared<GroupState>();
  group->comm = comm;
  group->name = std::move(name);
  group->world_ranks = std::move(world_ranks);
  group->rank = rank;
  group->timeout = timeout;
  auto space = std::make_shared<GroupState>();
  space->comm = comm + 1;
  space->name = group->name;
  space->world_ranks = group->world_ranks;
  space->rank = rank;
  space->timeout = timeout;
  group->collectives = std::move(space);
  return group;
}

}  // namespace weft::detail

// GroupState: what a weft::Group handle refers to. Immutable once built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/timeout.h"

namespace weft::detail {

struct GroupState {
  uint32_t comm = 0;             // matching space of the group's messages; 0 is the world
  std::string name;              // "world", for messages
  std::vector<int> world_ranks;  // group rank -> world rank
  int rank = -1;                 // this process's group rank; -1 if not a member
  Timeout timeout{};             // default timeout of operations in this group

  int size() const { return static_cast<int>(world_ranks.size()); }
};

}  // namespace weft::detail

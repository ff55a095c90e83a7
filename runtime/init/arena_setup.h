// Setting up a group's shared-memory arena (collectives/arena/shared_arena.h)
// through the job's store, when the world or a new group is created:
//
//   1. Each member says whether it reaches every other member through shared memory.
//      Only if all say yes does the group get an arena, so the choice is the same on
//      every member (and so is the selection table's, which keys on it).
//   2. Member 0 creates the segment, checked against the free space of /dev/shm, and
//      publishes its name; the others map it and report.
//   3. Member 0 publishes the outcome once all have reported, and unlinks the name: from
//      then on nothing is left in /dev/shm however the job ends. A member that could
//      not map it makes the group go without an arena everywhere (a WARN says why).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "collectives/arena/shared_arena.h"

namespace weft::runtime {

struct Context;

// WEFT_SHM_ARENA_BYTES: bytes of each member's staging buffers (two per member); 0
// turns the shared-memory collectives off.
uint64_t arena_buffer_bytes_from_env();

// The arena of the group `members` (world ranks, in group order) with comm id `comm`,
// of which this process is member `member`; null when the group does not get one.
// Every member calls it at the same point.
std::shared_ptr<collectives::SharedArena> establish_arena(Context& c, uint32_t comm,
                                                          const std::vector<int>& members,
                                                          int member, base::Deadline deadline);

}  // namespace weft::runtime

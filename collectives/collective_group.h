// CollectiveGroup: what the collectives of one group share. Their messages travel in
// a matching space of their own, apart from the group's point-to-point messages, so a
// user's receive never takes a collective's message; successive collectives take
// successive tags, so collectives in flight at once (a blocking one while an
// asynchronous one runs) never take each other's messages; and when every member
// shares memory, the group's arena is where its one-host collectives work.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "collectives/arena/shared_arena.h"
#include "collectives/host_layout.h"
#include "p2p/group_state.h"

namespace weft::collectives {

class CollectiveGroup {
 public:
  // `space`: the matching space of the collectives; `arena`: null when the group has none;
  // `hosts`: the group's host layout, null when it has none (host_layout.h).
  CollectiveGroup(std::shared_ptr<const p2p::GroupState> space, std::shared_ptr<SharedArena> arena,
                  const HostLayout* hosts)
      : space_(std::move(space)), arena_(std::move(arena)), hosts_(hosts) {}

  const std::shared_ptr<const p2p::GroupState>& space() const { return space_; }
  SharedArena* arena() const { return arena_.get(); }
  const HostLayout* hosts() const { return hosts_; }

  // The tag of the next collective. Taken in call order, which every rank shares.
  int take_tag() const {
    return static_cast<int>(next_tag_.fetch_add(1, std::memory_order_relaxed) & 0x7fffffffu);
  }

 private:
  std::shared_ptr<const p2p::GroupState> space_;
  std::shared_ptr<SharedArena> arena_;
  const HostLayout* hosts_;  // interned: lives as long as the process
  mutable std::atomic<uint32_t> next_tag_{0};
};

}  // namespace weft::collectives

// Group: a set of world ranks that communicate among themselves, with ranks renumbered
// 0..size()-1 in the order given. A default-constructed Group means the world group of
// the current process group, so `weft::send(t, 1)` and `weft::send(t, 1, Group())` are
// the same call. Every message is matched only against receives of the same group.
//
// Two numberings of the members, as in the original torch.distributed package: every
// `int` root, src and dst of the public API is a WORLD rank, in every group, and so is
// the source a receive or probe reports. A group rank is passed as GroupRank{r}, which
// every function taking a root, src or dst accepts too, and the results carry it as
// group_source. In the world group the two are equal.
#pragma once

#include <memory>
#include <vector>

namespace weft {

namespace runtime {
struct GroupRecord;
struct Handles;
}  // namespace runtime

// A rank in the group of the call it is passed to (0..size-1 in the group's order),
// where a plain int would be read as a world rank: broadcast(t, GroupRank{0}, g) takes
// the data from g's first member, broadcast(t, 0, g) from world rank 0.
struct GroupRank {
  constexpr explicit GroupRank(int group_rank) : value(group_rank) {}
  int value;
};

class Group {
 public:
  Group() = default;  // the world group

  // This process's rank in the group, or -1 when it is not a member.
  int rank() const;
  int size() const;
  bool is_member() const { return rank() >= 0; }
  // The world rank of group rank `group_rank` (InvalidArgument outside [0, size())).
  int world_rank(int group_rank) const;
  // The group rank of world rank `world_rank`, or -1 when that process is not a member
  // (InvalidArgument when `world_rank` is outside [0, world size)).
  int rank_of(int world_rank) const;

 private:
  friend struct runtime::Handles;
  explicit Group(std::shared_ptr<const runtime::GroupRecord> record) : record_(std::move(record)) {}
  std::shared_ptr<const runtime::GroupRecord> record_;  // null: the world group
};

}  // namespace weft

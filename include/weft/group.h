// Group: a set of world ranks that communicate among themselves, with ranks renumbered
// 0..size()-1 in the order given. A default-constructed Group means the world group of
// the current process group, so `weft::send(t, 1)` and `weft::send(t, 1, Group())` are
// the same call. Every message is matched only against receives of the same group.
#pragma once

#include <memory>
#include <vector>

namespace weft {

namespace runtime {
struct GroupRecord;
struct Handles;
}  // namespace runtime

class Group {
 public:
  Group() = default;  // the world group

  // This process's rank in the group, or -1 when it is not a member.
  int rank() const;
  int size() const;
  bool is_member() const { return rank() >= 0; }
  // The world rank of group rank `group_rank`.
  int world_rank(int group_rank) const;

 private:
  friend struct runtime::Handles;
  explicit Group(std::shared_ptr<const runtime::GroupRecord> record) : record_(std::move(record)) {}
  std::shared_ptr<const runtime::GroupRecord> record_;  // null: the world group
};

}  // namespace weft

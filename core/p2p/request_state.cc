#include "core/p2p/request_state.h"

namespace weft::detail {

std::string describe_op(OpKind kind, const GroupState& group, int peer, int tag) {
  std::string me = "rank " + std::to_string(group.rank);
  std::string other = peer < 0 ? "any rank" : "rank " + std::to_string(peer);
  std::string t = tag < 0 ? "any tag" : "tag " + std::to_string(tag);
  std::string where = " (" + t + ", group " + group.name + ")";
  if (kind == OpKind::kCollective) return "collective of " + me + where;
  if (kind == OpKind::kSend) return "send by " + me + " to " + other + where;
  return "recv by " + me + " from " + other + where;
}

}  // namespace weft::detail

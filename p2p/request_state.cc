#include "p2p/request_state.h"

namespace weft::p2p {
namespace {

// "<op> by rank R <direction> <peer> (<tag>, group G)"
std::string describe(const char* op, const char* direction, const GroupState& group, int peer,
                     int tag) {
  std::string other = peer < 0 ? "any rank" : "rank " + std::to_string(peer);
  std::string t = tag < 0 ? "any tag" : "tag " + std::to_string(tag);
  return std::string(op) + " by rank " + std::to_string(group.rank) + direction + other + " (" + t +
         ", group " + group.name + ")";
}

}  // namespace

std::string describe_op(OpKind kind, const GroupState& group, int peer, int tag) {
  if (kind == OpKind::kCollective) {
    std::string t = tag < 0 ? "any tag" : "tag " + std::to_string(tag);
    return "collective of rank " + std::to_string(group.rank) + " (" + t + ", group " + group.name +
           ")";
  }
  if (kind == OpKind::kSend) return describe("send", " to ", group, peer, tag);
  return describe("recv", " from ", group, peer, tag);
}

std::string describe_probe(const char* op, const GroupState& group, int src, int tag) {
  return describe(op, " from ", group, src, tag);
}

}  // namespace weft::p2p

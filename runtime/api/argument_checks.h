// Checker: the argument checks shared by the point-to-point and collective calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/group_record.h"
#include "weft/collectives.h"
#include "weft/group.h"
#include "weft/p2p.h"
#include "weft/tensor.h"

namespace weft::runtime {

// "rank 1 of group world"
std::string group_clause(const p2p::GroupState& group);

// A root, src or dst as the caller passed it: a world rank (the public int forms) or a
// rank in the call's group (the GroupRank forms). The Checker turns it into the group
// rank that everything below the public API works with.
struct RankArgument {
  int value;
  bool is_group_rank;
};
inline RankArgument world_rank(int rank) { return {rank, false}; }
inline RankArgument group_rank(GroupRank rank) { return {rank.value, true}; }

// Argument checks that name the operation, the rank and the group, e.g.
// "broadcast (rank 1 of group world): root 5 (world rank) is outside [0, 4)".
// Constructing one resolves the group and refuses a process that is not a member.
class Checker {
 public:
  Checker(const char* op, const Group& group);
  const std::shared_ptr<const GroupRecord>& record() const { return record_; }
  // The group's point-to-point matching space.
  const std::shared_ptr<const p2p::GroupState>& group() const { return record_->messages; }
  int rank() const { return record_->rank(); }
  int size() const { return record_->size(); }

  [[noreturn]] void fail(const std::string& what) const;
  // A usable tensor: valid dtype, host memory or device memory the device layer can
  // use, data unless empty.
  void tensor(const Tensor& t, const char* name) const;
  // The group rank of a collective's root; InvalidArgument for a group rank outside
  // the group or a world rank that is not a member, naming both numberings.
  int root(RankArgument root) const { return member(root, "root", false); }
  // The group rank of a point-to-point peer `name` ("dst", "src"), checked as root();
  // receiving calls (`any_allowed`) also take kAnySource (returned as it is).
  int peer(RankArgument peer, const char* name, bool any_allowed) const {
    return member(peer, name, any_allowed);
  }
  // A point-to-point tag; receiving calls (`any_allowed`) also take kAnyTag.
  void tag(int tag, bool any_allowed) const {
    if (tag < (any_allowed ? -1 : 0)) [[unlikely]]
      refuse_tag(tag, any_allowed);
  }
  void op_on(ReduceOp op, DType dtype) const;
  void same_dtype(const Tensor& a, const char* a_name, const Tensor& b, const char* b_name) const;
  // `why` is a literal: a std::string here would be built (and allocated) on every call.
  void count(const Tensor& t, const char* name, uint64_t expected, const char* why) const;
  // a x b and a + b of element counts, failing naming `what` when the result does not
  // fit in 64 bits (where it would wrap and pass a size check it should fail).
  uint64_t product(uint64_t a, uint64_t b, const char* what) const;
  uint64_t sum(uint64_t a, uint64_t b, const char* what) const;

 private:
  // The checks every point-to-point call makes stay inline; what fails is out of line.
  int member(RankArgument rank, const char* name, bool any_allowed) const {
    if (any_allowed && rank.value == kAnySource) return kAnySource;
    if (rank.is_group_rank && rank.value >= 0 && rank.value < size()) return rank.value;
    return member_slow(rank, name, any_allowed);
  }
  int member_slow(RankArgument rank, const char* name, bool any_allowed) const;
  [[noreturn, gnu::cold]] void refuse_tag(int tag, bool any_allowed) const;

  const char* op_;
  // The group outlives the call: resolve_group() hands out the caller's Group's record
  // or the context's world, so a reference is enough (no reference count to touch).
  const std::shared_ptr<const GroupRecord>& record_;
};

}  // namespace weft::runtime

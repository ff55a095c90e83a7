// Faults the soft device injects on request, so that a test of a transport can check
// that it notices them (soft_verbs.h lists them). Counted per process; each fires once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace weft::testing::soft_verbs {

struct FaultPlan {
  std::optional<uint64_t> bad_rkey_after;         // RDMA WRITEs that go right first
  std::optional<uint64_t> drop_completion_after;  // signaled send completions kept first
};

// "bad_rkey_after:N,drop_completion_after:M", either or both; "" is no fault. nullopt,
// with the reason in *why, for anything else.
std::optional<FaultPlan> parse_fault_plan(const std::string& spec, std::string* why);

class Faults {
 public:
  // Replaces the plan and restarts the counts.
  void arm(const FaultPlan& plan);
  // Counts an RDMA WRITE (with or without immediate); true when this one is to go out
  // with a wrong rkey.
  bool corrupt_this_write();
  // Counts a successful signaled send completion; true when this one is to be lost.
  bool drop_this_completion();

 private:
  FaultPlan plan_;
  uint64_t writes_ = 0;
  uint64_t completions_ = 0;
};

}  // namespace weft::testing::soft_verbs

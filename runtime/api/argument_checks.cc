#include "runtime/api/argument_checks.h"

#include "collectives/reduce/reduce_kernels.h"
#include "runtime/context.h"
#include "runtime/device_interface.h"
#include "weft/error.h"
#include "weft/p2p.h"

namespace weft::runtime {

std::string group_clause(const p2p::GroupState& g) {
  return "rank " + std::to_string(g.rank) + " of group " + g.name;
}

Checker::Checker(const char* op, const Group& group) : op_(op), record_(resolve_group(group, op)) {
  if (record_->rank() < 0) fail("this process is not a member of the group");
}

void Checker::fail(const std::string& what) const {
  const p2p::GroupState& g = *record_->messages;
  // Outside the world group the caller's world rank is named too: roots, src and dst
  // are world ranks there.
  const std::string world =
      g.comm == 0 || g.rank < 0 ? "" : ", world rank " + std::to_string(g.world_ranks[g.rank]);
  throw InvalidArgument(std::string(op_) + " (" + group_clause(g) + world + "): " + what);
}

void Checker::tensor(const Tensor& t, const char* name) const {
  if (static_cast<int>(t.dtype()) >= kNumDTypes) fail(std::string(name) + "'s dtype is invalid");
  if (on_device(t)) [[unlikely]] {
    DeviceLayer* layer = find_device_layer();
    if (layer == nullptr) {
      fail(std::string(name) + " is on " + device_name(t.device()) +
           ", but this program links no device layer (link //:weft, not //runtime)");
    }
    if (base::Failure refused = layer->check_tensor(t)) {
      fail(std::string(name) + " is on " + device_name(t.device()) + ", " + refused.why());
    }
  } else if (t.device().type != DeviceType::kCpu) {
    fail(std::string(name) + "'s device type is invalid");
  }
  if (t.data() == nullptr && t.count() > 0) {
    fail(std::string(name) + " has " + std::to_string(t.count()) + " elements but no data pointer");
  }
  // count x element size must be a size: no buffer holds more than PTRDIFF_MAX bytes,
  // and a product that wrapped would make every later size check meaningless.
  const uint64_t element = dtype_size(t.dtype());
  uint64_t bytes;  // a multiplication, not a division by the element size: every call checks
  if (__builtin_mul_overflow(t.count(), element, &bytes) ||
      bytes > static_cast<uint64_t>(PTRDIFF_MAX)) {
    fail(std::string(name) + " has " + std::to_string(t.count()) + " elements of " +
         dtype_name(t.dtype()) + ", more than any buffer can hold (" + std::to_string(element) +
         " bytes each)");
  }
  if (t.count() > 0 && reinterpret_cast<uintptr_t>(t.data()) > UINTPTR_MAX - bytes) {
    fail(std::string(name) + "'s " + std::to_string(bytes) +
         " bytes would run past the end of the address space");
  }
}

uint64_t Checker::product(uint64_t a, uint64_t b, const char* what) const {
  uint64_t result;
  if (__builtin_mul_overflow(a, b, &result)) {
    fail(std::string(what) + " (" + std::to_string(a) + " x " + std::to_string(b) +
         ") does not fit in 64 bits");
  }
  return result;
}

uint64_t Checker::sum(uint64_t a, uint64_t b, const char* what) const {
  uint64_t result;
  if (__builtin_add_overflow(a, b, &result)) {
    fail(std::string(what) + " (" + std::to_string(a) + " + " + std::to_string(b) +
         ") does not fit in 64 bits");
  }
  return result;
}

int Checker::member_slow(RankArgument rank, const char* name, bool any_allowed) const {
  const p2p::GroupState& g = *record_->messages;
  const char* any = any_allowed ? " (or kAnySource)" : "";
  if (rank.is_group_rank) {
    if (rank.value < 0 || rank.value >= size()) {
      fail(std::string(name) + " GroupRank{" + std::to_string(rank.value) + "} is outside [0, " +
           std::to_string(size()) + ")" + any);
    }
    return rank.value;
  }
  const int found = g.rank_of(rank.value);
  if (found < 0) {
    const int world_size = context(op_).world_size;
    if (rank.value < 0 || rank.value >= world_size) {
      fail(std::string(name) + " " + std::to_string(rank.value) + " (world rank) is outside [0, " +
           std::to_string(world_size) + ")" + any);
    }
    fail(std::string(name) + " " + std::to_string(rank.value) +
         " (world rank) is not a member of group " + g.name +
         " (pass GroupRank{r} for the group's rank r)");
  }
  return found;
}

void Checker::refuse_tag(int tag, bool any_allowed) const {
  fail("tag " + std::to_string(tag) + " is negative" +
       (any_allowed ? " (only kAnyTag may be)" : ""));
}

void Checker::op_on(ReduceOp op, DType dtype) const {
  if (static_cast<int>(op) >= kNumReduceOps) fail("the reduction op is invalid");
  if (!collectives::reduce::op_supports(op, dtype)) {
    fail(std::string("op ") + reduce_op_name(op) + " is defined on integer dtypes only, not " +
         dtype_name(dtype));
  }
}

void Checker::same_dtype(const Tensor& a, const char* a_name, const Tensor& b,
                         const char* b_name) const {
  if (a.dtype() != b.dtype()) {
    fail(std::string(a_name) + " is " + dtype_name(a.dtype()) + " but " + b_name + " is " +
         dtype_name(b.dtype()));
  }
}

void Checker::count(const Tensor& t, const char* name, uint64_t expected, const char* why) const {
  if (t.count() != expected) {
    fail(std::string(name) + " has " + std::to_string(t.count()) + " elements, expected " +
         std::to_string(expected) + " (" + why + ")");
  }
}

}  // namespace weft::runtime

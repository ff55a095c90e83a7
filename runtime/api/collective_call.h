// CollectiveCall: one validated call of a public collective, and running it: inline in
// the caller's thread (blocking forms) or in the background thread (asynchronous
// forms). The call's arguments are checked by the public functions (collectives.cc)
// with a Checker (argument_checks.h) before anything is sent, so bad input fails on
// the rank that passed it with InvalidArgument, and no message of the call has left.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/collective_spec.h"
#include "runtime/api/argument_checks.h"
#include "runtime/group_record.h"
#include "weft/collectives.h"
#include "weft/error.h"
#include "weft/request.h"
#include "weft/tensor.h"

namespace weft::runtime {

struct CollectiveCall {
  const char* op = "";  // the public name, e.g. "all_reduce"
  std::shared_ptr<const GroupRecord> group;
  collectives::CollectiveSpec spec;
  Tensor input, output;  // either may be empty where the collective has no such buffer
  // Set by run_blocking/run_async when a tensor is device memory: the device layer
  // (runtime/device_interface.h) runs the call, keeping what it needs in device_state.
  bool on_device = false;
  std::shared_ptr<void> device_state;
  // The list forms (all_gather, gather, scatter over one tensor per member) run the flat
  // form over a staging buffer, which the call keeps alive; `finish` copies the result
  // out of it once the collective has succeeded, before a Request reports completion.
  std::shared_ptr<void> staging;
  std::function<void()> finish;
};

// An empty vector for a spec's blocks, with the capacity of one that an earlier blocking
// call of this thread gave back: a collective with blocks (all_gather, all_to_all, ...)
// that repeats then allocates none.
std::vector<collectives::Block> block_vector();

// A call with the common fields filled in (kind, dtype, size, rank, segment).
CollectiveCall make_call(const Checker& checker, const char* op, collectives::CollectiveKind kind,
                         DType dtype);

// Runs the call in the caller's thread, then keeps its spec's block vectors for the
// thread's next calls (block_vector()).
void run_blocking(CollectiveCall&& call, Timeout timeout);
Request run_async(CollectiveCall call);

// Whether this process is outside `group`, and so takes no part in its collectives
// (InvalidArgument for a destroyed group, as any call on it).
bool takes_no_part(const Group& group, const char* op);
// The Request of an asynchronous collective that a process outside its group called:
// completed, without error.
Request completed_request(const char* op);

}  // namespace weft::runtime

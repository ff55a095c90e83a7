// CollectiveCall: one validated call of a public collective, and running it: inline in
// the caller's thread (blocking forms) or in the background thread (asynchronous
// forms). The call's arguments are checked by the public functions (collectives.cc)
// with a Checker (argument_checks.h) before anything is sent, so bad input fails on
// the rank that passed it with InvalidArgument, and no message of the call has left.
#pragma once

#include <memory>
#include <string>

#include "core/api/argument_checks.h"
#include "core/collectives/collective_spec.h"
#include "core/p2p/group_state.h"
#include "weft/collectives.h"
#include "weft/error.h"
#include "weft/request.h"
#include "weft/tensor.h"

namespace weft::core {

struct CollectiveCall {
  const char* op = "";  // the public name, e.g. "all_reduce"
  std::shared_ptr<const detail::GroupState> group;
  CollectiveSpec spec;
  Tensor input, output;  // either may be empty where the collective has no such buffer
  // Set by run_blocking/run_async when a tensor is device memory: the device layer
  // (core/api/device_layer.h) runs the call, keeping what it needs in device_state.
  bool on_device = false;
  std::shared_ptr<void> device_state;
};

// A call with the common fields filled in (kind, dtype, size, rank, segment).
CollectiveCall make_call(const Checker& checker, const char* op, CollectiveKind kind, DType dtype);

// A host call of `kind` over `outer`'s group, as one step of `outer` (the device
// layer's steps); the caller fills in the counts, blocks and tensors.
CollectiveCall make_step(const CollectiveCall& outer, CollectiveKind kind, DType dtype);

// Whether every member of the group shares memory with this process (one host).
bool group_shares_memory(const detail::GroupState& group);

void run_blocking(const CollectiveCall& call, Timeout timeout);
Request run_async(CollectiveCall call);

}  // namespace weft::core

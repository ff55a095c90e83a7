// LowerLayerScope: marks the current thread as inside a call to the layer below (the
// collectives' calls into the point-to-point engine), so that allocation counting
// (tools/bench/allocation_counter.h) can tell a layer's own heap allocations from those
// of the layer it calls: a test of the collectives can then hold the collective layer to
// zero allocations per call even where the engine underneath still allocates. It costs
// a thread-local increment and decrement per call; nothing reads it but the counter.
#pragma once

namespace weft::base {

class LowerLayerScope {
 public:
  LowerLayerScope();
  ~LowerLayerScope();
  LowerLayerScope(const LowerLayerScope&) = delete;
  LowerLayerScope& operator=(const LowerLayerScope&) = delete;
};

// Whether this thread is inside a LowerLayerScope.
bool in_lower_layer();

}  // namespace weft::base

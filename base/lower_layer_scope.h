// LowerLayerScope: marks the current thread as inside a call to the layer below (the
// collectives' calls into the point-to-point engine), so that allocation counting
// (tools/bench/allocation_counter.h) can tell a layer's own heap allocations from those
// of the layer it calls: a test of the collectives can then hold the collective layer to
// zero allocations per call even where the engine underneath still allocates. It costs
// one thread-local increment and decrement per call; nothing reads it but the counter.
#pragma once

#include <cstdint>

namespace weft::base {

// Nonzero while this thread is inside a call to the layer below.
inline thread_local uint32_t in_lower_layer = 0;

class LowerLayerScope {
 public:
  LowerLayerScope() { ++in_lower_layer; }
  ~LowerLayerScope() { --in_lower_layer; }
  LowerLayerScope(const LowerLayerScope&) = delete;
  LowerLayerScope& operator=(const LowerLayerScope&) = delete;
};

}  // namespace weft::base

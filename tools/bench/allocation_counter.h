// allocation_counter: counts the heap allocations of the whole process, so that a
// benchmark can print allocations per operation and a test can assert that a
// steady-state operation makes none.
//
// Linking the library replaces the global operator new (every form) and counts each
// call, in every thread; malloc, calloc, realloc and the aligned forms (aligned_alloc,
// posix_memalign, memalign) are counted too where glibc lets a program interpose them (it
// does for dynamically linked programs). The count is one relaxed atomic increment per
// allocation, and two thread-local ones, so it costs nothing measurable beside the
// allocation itself.
#pragma once

#include <cstdint>

namespace weft::bench {

// Allocations made by this process so far.
uint64_t allocations();

// Allocations made by the calling thread so far, and those of them it made inside a call
// to a lower layer (base/lower_layer_scope.h: the collectives' calls into the
// point-to-point engine). The difference is the calling layer's own.
uint64_t thread_allocations();
uint64_t thread_allocations_in_lower_layer();

// Allocations made while `body` runs, divided by `operations`; body is run once.
template <typename Body>
double allocations_per_operation(uint64_t operations, Body&& body) {
  uint64_t before = allocations();
  body();
  return operations == 0 ? 0.0 : double(allocations() - before) / double(operations);
}

}  // namespace weft::bench

// The counting operator new and malloc of allocation_counter.h.
#include "tools/bench/allocation_counter.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>

#include "base/lower_layer_scope.h"

extern "C" {
// glibc's own entry points: the interposed malloc family forwards to them.
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace weft::bench {
namespace {

std::atomic<uint64_t> allocation_count{0};
// Plain integers, constant-initialised: safe to touch from inside malloc.
thread_local uint64_t thread_count = 0;
thread_local uint64_t thread_lower_layer_count = 0;

void count() {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  ++thread_count;
  if (weft::base::in_lower_layer()) ++thread_lower_layer_count;
}

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

void* allocate(std::size_t size) {
  count();
  if (size == 0) size = 1;
  void* p = __libc_malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  count();
  if (size == 0) size = 1;
  void* p = __libc_memalign(static_cast<std::size_t>(alignment), size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

uint64_t allocations() { return allocation_count.load(std::memory_order_relaxed); }
uint64_t thread_allocations() { return thread_count; }
uint64_t thread_allocations_in_lower_layer() { return thread_lower_layer_count; }

}  // namespace weft::bench

using weft::bench::allocate;
using weft::bench::allocate_aligned;

extern "C" {
void* malloc(size_t size) {
  weft::bench::count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  weft::bench::count();
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  weft::bench::count();
  return __libc_realloc(p, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  weft::bench::count();
  return __libc_memalign(alignment, size);
}
void* memalign(size_t alignment, size_t size) {
  weft::bench::count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** result, size_t alignment, size_t size) {
  if (!weft::bench::is_power_of_two(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  weft::bench::count();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *result = p;
  return 0;
}
}

// operator new forwards to __libc_malloc itself (not to the counting malloc above), so
// that each allocation is counted once.
void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_aligned(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_aligned(size, alignment);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

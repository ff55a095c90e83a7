// The counting operator new and malloc of allocation_counter.h.
#include "tools/bench/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

extern "C" {
// glibc's own entry points: the interposed malloc family forwards to them.
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
}

namespace weft::bench {
namespace {

std::atomic<uint64_t> allocation_count{0};

void count() { allocation_count.fetch_add(1, std::memory_order_relaxed); }

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
  void* p = nullptr;
  if (posix_memalign(&p, static_cast<std::size_t>(alignment), size) != 0) {
    throw std::bad_alloc();
  }
  return p;
}

}  // namespace

uint64_t allocations() { return allocation_count.load(std::memory_order_relaxed); }

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

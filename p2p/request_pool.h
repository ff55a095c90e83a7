// The memory of point-to-point requests: a free list of fixed-size blocks, from which
// std::allocate_shared places a request and its reference count together, so a steady
// stream of isend/irecv requests reuses the same few blocks instead of allocating.
//
// The list belongs to the process, not to an engine: a Request handle may outlive the
// engine that made it (a completed request never touches its engine), and its memory
// returns here whenever the last handle goes, from whatever thread drops it.
#pragma once

#include <cstddef>
#include <new>

namespace weft::p2p {

namespace request_pool {

inline constexpr size_t kBlockBytes = 512;
// A block of kBlockBytes, aligned for any fundamental type.
void* take();
void give_back(void* block);

}  // namespace request_pool

// An allocator over request_pool for objects that fit one block; anything else (an
// array, a larger type) comes from the heap as usual.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}

  static constexpr bool kPooled =
      sizeof(T) <= request_pool::kBlockBytes && alignof(T) <= alignof(std::max_align_t);

  T* allocate(size_t n) {
    if (kPooled && n == 1) return static_cast<T*>(request_pool::take());
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (kPooled && n == 1) return request_pool::give_back(p);
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace weft::p2p

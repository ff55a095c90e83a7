// Fixed-size blocks for small objects made and dropped at message rate (point-to-point
// requests, MPI's request handles): a free list, so that a steady stream of operations
// reuses the same few blocks instead of allocating. Each thread keeps a few blocks of
// its own in front of the process's list, so that taking and giving back a block in
// the steady state costs no lock.
//
// The memory belongs to the process, not to an engine: a handle may outlive the engine
// that made it, and its block returns here whenever the last reference goes, from
// whatever thread drops it.
#pragma once

#include <cstddef>
#include <new>

namespace weft::base {

namespace block_pool {

inline constexpr size_t kBlockBytes = 512;
// A block of kBlockBytes, aligned for any fundamental type.
void* take();
void give_back(void* block);

}  // namespace block_pool

// An allocator over block_pool for objects that fit one block (std::allocate_shared
// places an object and its reference count together in one); anything else (an array,
// a larger type) comes from the heap as usual.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}

  static constexpr bool kPooled =
      sizeof(T) <= block_pool::kBlockBytes && alignof(T) <= alignof(std::max_align_t);

  T* allocate(size_t n) {
    if (kPooled && n == 1) return static_cast<T*>(block_pool::take());
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (kPooled && n == 1) return block_pool::give_back(p);
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

// For a class whose objects are made with new and dropped with delete: its own
// operator new and delete over block_pool (the class must fit one block).
#define WEFT_BLOCK_POOLED(Class)                                                             \
  static void* operator new(size_t bytes) {                                                  \
    static_assert(sizeof(Class) <= ::weft::base::block_pool::kBlockBytes, "too large");      \
    return bytes <= ::weft::base::block_pool::kBlockBytes ? ::weft::base::block_pool::take() \
                                                          : ::operator new(bytes);           \
  }                                                                                          \
  static void operator delete(void* block, size_t bytes) {                                   \
    if (bytes <= ::weft::base::block_pool::kBlockBytes) {                                    \
      ::weft::base::block_pool::give_back(block);                                            \
    } else {                                                                                 \
      ::operator delete(block);                                                              \
    }                                                                                        \
  }

}  // namespace weft::base

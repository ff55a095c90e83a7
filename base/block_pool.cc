#include "base/block_pool.h"

#include <mutex>

namespace weft::base::block_pool {
namespace {

// Blocks kept for reuse beyond this many go back to the heap: a burst of thousands of
// outstanding operations does not pin their memory for the life of the process.
constexpr size_t kMaxFreeBlocks = 4096;
// Blocks a thread keeps for itself; past that, half go to the process's list at once.
constexpr size_t kThreadBlocks = 128;

struct FreeBlock {
  FreeBlock* next;
};

struct FreeList {
  FreeBlock* head = nullptr;
  size_t count = 0;

  void push(FreeBlock* block) {
    block->next = head;
    head = block;
    ++count;
  }
  FreeBlock* pop() {
    FreeBlock* block = head;
    if (block != nullptr) {
      head = block->next;
      --count;
    }
    return block;
  }
};

struct SharedList {
  std::mutex mutex;
  FreeList list;
};

// Never destroyed: operations may be dropped while static objects are being destroyed.
SharedList& shared() {
  static SharedList* list = new SharedList;
  return *list;
}

void give_to_shared(FreeBlock* block) {
  SharedList& s = shared();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.list.count < kMaxFreeBlocks) return s.list.push(block);
  }
  ::operator delete(block);
}

// The thread's own blocks. The pointer, trivially destructible, stays readable after the
// owner is destroyed at thread exit and then says there is no cache any more (kGone),
// for the blocks dropped by destructors that run after it. One thread-local variable
// on the fast path: in a shared library each costs a call to find it, unless, as here,
// it is in the static TLS block (initial-exec: one pointer, which fits the block's
// reserve even when the library is loaded by dlopen, as Python loads it).
struct ThreadCache {
  FreeList list;
  ~ThreadCache();
};
ThreadCache* const kGone = reinterpret_cast<ThreadCache*>(alignof(ThreadCache));
[[gnu::tls_model("initial-exec")]] thread_local ThreadCache* thread_cache = nullptr;

ThreadCache::~ThreadCache() {
  thread_cache = kGone;
  while (FreeBlock* block = list.pop()) give_to_shared(block);
}

// Null once the thread's cache is gone.
[[gnu::noinline]] ThreadCache* first_cache() {
  thread_local ThreadCache owner;
  return thread_cache = &owner;
}

ThreadCache* cache() {
  ThreadCache* c = thread_cache;
  if (c == nullptr) [[unlikely]]
    c = first_cache();
  return c == kGone ? nullptr : c;
}

// The slow halves out of line, so that the fast ones (the thread's own list) need no
// stack frame for a lock.
[[gnu::noinline]] void* take_shared() {
  SharedList& s = shared();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (FreeBlock* block = s.list.pop()) return block;
  }
  return ::operator new(kBlockBytes);
}

[[gnu::noinline]] void pass_half_on(ThreadCache& c) {
  // One thread that only drops what another makes (a progress thread, say) would
  // otherwise collect them all.
  SharedList& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  while (c.list.count > kThreadBlocks / 2) {
    FreeBlock* extra = c.list.pop();
    if (s.list.count < kMaxFreeBlocks) {
      s.list.push(extra);
    } else {
      ::operator delete(extra);
    }
  }
}

}  // namespace

void* take() {
  if (ThreadCache* c = cache()) {
    if (FreeBlock* block = c->list.pop()) return block;
  }
  return take_shared();
}

void give_back(void* block) {
  auto* free = static_cast<FreeBlock*>(block);
  ThreadCache* c = cache();
  if (c == nullptr) return give_to_shared(free);
  c->list.push(free);
  if (c->list.count > kThreadBlocks) pass_half_on(*c);
}

}  // namespace weft::base::block_pool

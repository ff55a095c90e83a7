#include "p2p/request_pool.h"

#include <mutex>

namespace weft::p2p::request_pool {
namespace {

// Blocks kept for reuse beyond this many go back to the heap: a burst of thousands of
// outstanding requests does not pin their memory for the life of the process.
constexpr size_t kMaxFreeBlocks = 4096;

struct FreeBlock {
  FreeBlock* next;
};

struct FreeList {
  std::mutex mutex;
  FreeBlock* head = nullptr;
  size_t count = 0;
};

// Never destroyed: requests may be dropped while static objects are being destroyed.
FreeList& free_list() {
  static FreeList* list = new FreeList;
  return *list;
}

}  // namespace

void* take() {
  FreeList& list = free_list();
  {
    std::lock_guard<std::mutex> lock(list.mutex);
    if (FreeBlock* block = list.head) {
      list.head = block->next;
      --list.count;
      return block;
    }
  }
  return ::operator new(kBlockBytes);
}

void give_back(void* block) {
  FreeList& list = free_list();
  {
    std::lock_guard<std::mutex> lock(list.mutex);
    if (list.count < kMaxFreeBlocks) {
      auto* free = static_cast<FreeBlock*>(block);
      free->next = list.head;
      list.head = free;
      ++list.count;
      return;
    }
  }
  ::operator delete(block);
}

}  // namespace weft::p2p::request_pool

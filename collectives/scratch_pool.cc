#include "collectives/scratch_pool.h"

#include <cstdlib>
#include <new>
#include <string>

#include "weft/error.h"

namespace weft::collectives {
namespace {

// Free buffers kept beyond this total are released, largest first.
constexpr uint64_t kKeepBytes = 1ull << 30;

}  // namespace

ScratchPool::Lease& ScratchPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (pool_ && data_) pool_->give_back(data_, bytes_);
    pool_ = other.pool_;
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.pool_ = nullptr;
    other.data_ = nullptr;
  }
  return *this;
}

ScratchPool::Lease::~Lease() {
  if (pool_ && data_) pool_->give_back(data_, bytes_);
}

ScratchPool::~ScratchPool() {
  for (Buffer& b : free_) std::free(b.data);
}

ScratchPool::Lease ScratchPool::acquire(uint64_t bytes) {
  if (bytes == 0) return {};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The smallest free buffer that is large enough.
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].bytes >= bytes && (best == free_.size() || free_[i].bytes < free_[best].bytes)) {
        best = i;
      }
    }
    if (best != free_.size()) {
      Buffer b = free_[best];
      free_.erase(free_.begin() + best);
      return Lease(this, b.data, b.bytes);
    }
  }
  uint64_t rounded = (bytes + 63) / 64 * 64;
  void* data = std::aligned_alloc(64, rounded);
  if (data == nullptr) {
    throw Error(ErrorCode::kInternal,
                "cannot allocate " + std::to_string(rounded) + " bytes of collective scratch");
  }
  return Lease(this, static_cast<std::byte*>(data), rounded);
}

void ScratchPool::give_back(std::byte* data, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back({data, bytes});
  uint64_t total = 0;
  for (const Buffer& b : free_) total += b.bytes;
  while (total > kKeepBytes && !free_.empty()) {
    size_t largest = 0;
    for (size_t i = 1; i < free_.size(); ++i) {
      if (free_[i].bytes > free_[largest].bytes) largest = i;
    }
    total -= free_[largest].bytes;
    std::free(free_[largest].data);
    free_.erase(free_.begin() + largest);
  }
}

}  // namespace weft::collectives

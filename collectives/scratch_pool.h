// ScratchPool: the scratch memory of collectives, kept between calls. Touching fresh
// memory costs page faults (on some machines several milliseconds per MiB), far more
// than the transfer it would serve, so buffers are reused rather than allocated per
// call. Several collectives may run at once (blocking ones in callers' threads,
// asynchronous ones in the background), so a buffer is leased to one at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace weft::collectives {

class ScratchPool {
 public:
  class Lease {
   public:
    Lease() = default;
    Lease(ScratchPool* pool, std::byte* data, uint64_t bytes)
        : pool_(pool), data_(data), bytes_(bytes) {}
    Lease(Lease&& other) noexcept { *this = std::move(other); }
    Lease& operator=(Lease&& other) noexcept;
    ~Lease();
    std::byte* data() const { return data_; }

   private:
    ScratchPool* pool_ = nullptr;
    std::byte* data_ = nullptr;
    uint64_t bytes_ = 0;
  };

  ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ~ScratchPool();

  // At least `bytes` bytes, 64-byte aligned; empty for 0 bytes.
  Lease acquire(uint64_t bytes);

 private:
  struct Buffer {
    std::byte* data;
    uint64_t bytes;
  };
  void give_back(std::byte* data, uint64_t bytes);

  std::mutex mutex_;
  std::vector<Buffer> free_;
};

}  // namespace weft::collectives

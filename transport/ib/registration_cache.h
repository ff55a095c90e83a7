// RegistrationCache: memory registrations for the buffers a verbs link moves large
// payloads from and into, looked up by address range.
//
// A registration pins pages and is slow to make (tens of microseconds and more per
// MiB on real adapters), so keeping it for a buffer used again pays. But a program may
// free a buffer and get the same addresses back for another allocation, and a cached
// registration would then still point at the old pages: the adapter would read and
// write memory the program no longer sees. So the cache keeps nothing by default: each
// user buffer is registered for its transfer and deregistered after it. Only when the
// program promises not to free memory it sent from or received into while weft may
// still use it (WEFT_IB_REG_CACHE=1, as Open MPI's leave_pinned) are registrations kept,
// within a bound of entries and bytes, the least recently used going first. weft's own
// buffers (eager buffers, staging) never come here: they are registered once, for their
// lifetime, where they are made.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <list>
#include <map>
#include <string>

#include "transport/ib/gpudirect.h"
#include "transport/ib/verbs_api.h"

namespace weft::transport::ib {

class RegistrationCache;

// A registration in use, from acquire() until release().
class Registration {
 public:
  Registration() = default;
  explicit operator bool() const { return mr_ != nullptr; }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }

 private:
  friend class RegistrationCache;
  ibv_mr* mr_ = nullptr;
  void* entry_ = nullptr;  // the cache's entry; null for one registered just for this use
};

class RegistrationCache {
 public:
  struct Limits {
    bool keep = false;                   // WEFT_IB_REG_CACHE: keep registrations after use
    size_t entries = 256;                // at most this many kept ...
    uint64_t bytes = uint64_t{1} << 30;  // ... covering at most this much memory
  };

  RegistrationCache(const VerbsApi& api, ibv_pd* pd, Limits limits);
  // Deregisters what it keeps; every registration must have been released.
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  // A registration covering [address, address + bytes) with at least `access`
  // (IBV_ACCESS_* flags; 0 for memory the adapter only reads). An empty one, with
  // the reason in *why, when ibv_reg_mr refuses.
  Registration acquire(const void* address, uint64_t bytes, int access, std::string* why);
  // A registration of [address, address + bytes) of `device`'s memory by GPUDirect RDMA
  // (device_registration.h), made for this use and deregistered at release(), never
  // kept: a program frees device memory as it likes (cudaFree, caching allocators), and
  // a kept registration would pin pages it no longer owns.
  Registration acquire_device(DeviceBufferPath path, const void* address, uint64_t bytes,
                              int device, int access, std::string* why);
  // Ends a use: the registration is deregistered, or kept for the next use when
  // registrations are kept, evicting the least recently used beyond the limits.
  void release(Registration& registration);

  const Limits& limits() const { return limits_; }
  // For tests and logs.
  size_t kept_entries() const { return lru_.size(); }
  uint64_t kept_bytes() const { return kept_bytes_; }
  uint64_t registrations_made() const { return made_; }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    uintptr_t start = 0;
    uintptr_t end = 0;
    int access = 0;
    ibv_mr* mr = nullptr;
    int users = 0;
    std::multimap<uintptr_t, std::list<Entry>::iterator>::iterator by_start;
  };

  ibv_mr* register_range(uintptr_t start, uint64_t bytes, int access, std::string* why);
  Entry* find(uintptr_t start, uintptr_t end, int access);
  void evict_beyond_limits();
  void drop(std::list<Entry>::iterator entry);

  const VerbsApi& api_;
  ibv_pd* pd_;
  Limits limits_;
  std::list<Entry> lru_;  // most recently used first
  std::multimap<uintptr_t, std::list<Entry>::iterator> by_start_;
  uint64_t longest_ = 0;  // the longest range kept so far: how far back a cover may start
  uint64_t kept_bytes_ = 0;
  uint64_t made_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace weft::transport::ib

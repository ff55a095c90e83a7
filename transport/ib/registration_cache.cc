#include "transport/ib/registration_cache.h"

#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "transport/ib/device_registration.h"

namespace weft::transport::ib {

RegistrationCache::RegistrationCache(const VerbsApi& api, ibv_pd* pd, Limits limits)
    : api_(api), pd_(pd), limits_(limits) {}

RegistrationCache::~RegistrationCache() {
  while (!lru_.empty()) drop(std::prev(lru_.end()));
}

ibv_mr* RegistrationCache::register_range(uintptr_t start, uint64_t bytes, int access,
                                          std::string* why) {
  errno = 0;
  ibv_mr* mr = api_.reg_mr(pd_, reinterpret_cast<void*>(start), bytes, access);
  if (mr == nullptr) {
    const int error = errno;
    *why = "ibv_reg_mr of " + std::to_string(bytes) +
           " bytes failed: " + (error != 0 ? std::strerror(error) : "no reason given") +
           (error == ENOMEM ? " (the locked-memory limit, ulimit -l, may be too low)" : "");
    return nullptr;
  }
  ++made_;
  return mr;
}

RegistrationCache::Entry* RegistrationCache::find(uintptr_t start, uintptr_t end, int access) {
  // Entries are ordered by where they start; one that covers [start, end) starts at or
  // before `start`, and no further back than the longest range kept.
  auto it = by_start_.upper_bound(start);
  while (it != by_start_.begin()) {
    --it;
    if (it->first + longest_ < end) break;
    Entry& e = *it->second;
    if (e.start <= start && end <= e.end && (e.access & access) == access) return &e;
  }
  return nullptr;
}

Registration RegistrationCache::acquire(const void* address, uint64_t bytes, int access,
                                        std::string* why) {
  Registration r;
  const auto start = reinterpret_cast<uintptr_t>(address);
  if (limits_.keep) {
    if (Entry* e = find(start, start + bytes, access)) {
      ++e->users;
      lru_.splice(lru_.begin(), lru_, e->by_start->second);  // most recently used
      r.mr_ = e->mr;
      r.entry_ = e;
      return r;
    }
  }
  r.mr_ = register_range(start, bytes, access, why);
  if (r.mr_ == nullptr || !limits_.keep) return r;
  lru_.push_front(Entry{start, start + bytes, access, r.mr_, 1, {}});
  Entry& e = lru_.front();
  e.by_start = by_start_.emplace(start, lru_.begin());
  kept_bytes_ += bytes;
  longest_ = std::max(longest_, bytes);
  r.entry_ = &e;
  // Entries in use stay, so the limits may be passed for as long as they are.
  evict_beyond_limits();
  return r;
}

Registration RegistrationCache::acquire_device(DeviceBufferPath path, const void* address,
                                               uint64_t bytes, int device, int access,
                                               std::string* why) {
  Registration r;  // entry_ null: release() deregisters it
  r.mr_ = register_device_memory(api_, pd_, path, installed_device_memory(), address, bytes, device,
                                 access, why);
  return r;
}

void RegistrationCache::release(Registration& r) {
  if (!r) return;
  if (r.entry_ == nullptr) {
    if (const int rc = api_.dereg_mr(r.mr_); rc != 0) {
      WEFT_LOG(WARN) << "verbs: ibv_dereg_mr failed: " << std::strerror(rc);
    }
  } else {
    --static_cast<Entry*>(r.entry_)->users;
    evict_beyond_limits();
  }
  r = Registration{};
}

void RegistrationCache::evict_beyond_limits() {
  auto it = lru_.end();
  while ((lru_.size() > limits_.entries || kept_bytes_ > limits_.bytes) && it != lru_.begin()) {
    --it;
    if (it->users > 0) continue;
    auto victim = it++;
    drop(victim);
    ++evictions_;
  }
}

void RegistrationCache::drop(std::list<Entry>::iterator e) {
  if (e->users > 0) {
    WEFT_LOG(WARN) << "verbs: a registration is dropped while in use";
  }
  if (const int rc = api_.dereg_mr(e->mr); rc != 0) {
    WEFT_LOG(WARN) << "verbs: ibv_dereg_mr failed: " << std::strerror(rc);
  }
  kept_bytes_ -= e->end - e->start;
  by_start_.erase(e->by_start);
  lru_.erase(e);
}

}  // namespace weft::transport::ib

#include "tests/transport/ib/soft_verbs/memory_regions.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace weft::testing::soft_verbs {
namespace {

// Regions one process may have registered at once (ibv_device_attr::max_mr).
constexpr uint32_t kCapacity = 8192;
constexpr uint32_t kRemoteBit = 0x80;

uint32_t tag_of(uint32_t salt, uint8_t generation) { return (salt + generation) & 0x7f; }

}  // namespace

std::optional<Region> find_region(RegionTableHeader* table, uint32_t key, KeyKind kind) {
  const uint32_t index = key >> 8;
  if (table == nullptr || index >= table->capacity) return std::nullopt;
  RegionEntry* entry = region_entry(table, index);
  // A seqlock read: retry while the owner is rewriting the entry (a few instructions;
  // an owner that died in between leaves the entry unreadable, as if unregistered).
  for (int attempt = 0; attempt < 1 << 20; ++attempt) {
    const uint32_t before = entry->sequence.load(std::memory_order_acquire);
    if (before % 2 == 1) continue;
    const bool valid = entry->valid.load(std::memory_order_relaxed) != 0;
    const uint32_t registered_key = kind == KeyKind::kLocal
                                        ? entry->lkey.load(std::memory_order_relaxed)
                                        : entry->rkey.load(std::memory_order_relaxed);
    Region region;
    region.addr = entry->addr.load(std::memory_order_relaxed);
    region.length = entry->length.load(std::memory_order_relaxed);
    region.access = entry->access.load(std::memory_order_relaxed);
    region.pd_id = entry->pd_id.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (entry->sequence.load(std::memory_order_relaxed) != before) continue;
    if (!valid || registered_key != key) return std::nullopt;
    return region;
  }
  return std::nullopt;
}

std::unique_ptr<LocalRegions> LocalRegions::create(const Fabric& fabric) {
  static std::atomic<unsigned> tables_made{0};
  std::unique_ptr<LocalRegions> regions(new LocalRegions());
  regions->file_ = MappedFile::create(fabric.directory(), region_table_bytes(kCapacity));
  if (!regions->file_.valid()) return nullptr;
  RegionTableHeader* table = regions->table();
  table->capacity = kCapacity;
  table->owner_pid = getpid();
  regions->name_ = "mr." + std::to_string(getpid()) + "." + std::to_string(tables_made++);
  if (!regions->file_.publish(fabric.path(regions->name_))) return nullptr;
  regions->generation_.assign(kCapacity, 0);
  regions->used_.assign(kCapacity, false);
  regions->salt_ = static_cast<uint32_t>(getpid()) * 37u;
  // Index 0 would make a first key of small value, the kind a forgotten or zeroed key
  // has; start elsewhere.
  regions->cursor_ = 1 + static_cast<uint32_t>(getpid()) % 64;
  return regions;
}

LocalRegions::~LocalRegions() { file_.unlink(); }

std::optional<LocalRegions::Keys> LocalRegions::add(const Region& region) {
  for (uint32_t tried = 0; tried < kCapacity; ++tried) {
    const uint32_t index = (cursor_ + tried) % kCapacity;
    if (used_[index]) continue;
    used_[index] = true;
    cursor_ = index + 1;
    const uint8_t generation = ++generation_[index];
    Keys keys;
    keys.index = index;
    keys.lkey = index << 8 | tag_of(salt_, generation);
    keys.rkey = keys.lkey | kRemoteBit;
    RegionEntry* entry = region_entry(table(), index);
    const uint32_t sequence = entry->sequence.load(std::memory_order_relaxed);
    entry->sequence.store(sequence + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    entry->lkey.store(keys.lkey, std::memory_order_relaxed);
    entry->rkey.store(keys.rkey, std::memory_order_relaxed);
    entry->addr.store(region.addr, std::memory_order_relaxed);
    entry->length.store(region.length, std::memory_order_relaxed);
    entry->access.store(region.access, std::memory_order_relaxed);
    entry->pd_id.store(region.pd_id, std::memory_order_relaxed);
    entry->valid.store(1, std::memory_order_relaxed);
    entry->sequence.store(sequence + 2, std::memory_order_release);
    return keys;
  }
  return std::nullopt;
}

void LocalRegions::remove(uint32_t index) {
  RegionEntry* entry = region_entry(table(), index);
  const uint32_t sequence = entry->sequence.load(std::memory_order_relaxed);
  entry->sequence.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  entry->valid.store(0, std::memory_order_relaxed);
  entry->sequence.store(sequence + 2, std::memory_order_release);
  used_[index] = false;
}

}  // namespace weft::testing::soft_verbs

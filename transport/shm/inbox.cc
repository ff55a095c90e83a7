#include "transport/shm/inbox.h"

#include <new>

#include "weft/error.h"

namespace weft::transport::shm {
namespace {

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

uint64_t rings_offset(int rings) {
  return round_up(sizeof(SegmentHeader) + sizeof(int32_t) * static_cast<uint64_t>(rings), kLine);
}

uint64_t ring_stride(uint64_t capacity) { return sizeof(RingControl) + capacity; }

}  // namespace

size_t Inbox::bytes(int rings, uint64_t capacity) {
  return rings_offset(rings) + static_cast<uint64_t>(rings) * ring_stride(capacity);
}

void Inbox::format(std::byte* base, int owner_rank, const std::vector<int>& senders,
                   uint64_t capacity, uint64_t nonce, int64_t pid, uint64_t probe_address) {
  auto* h = reinterpret_cast<SegmentHeader*>(base);
  h->nonce = nonce;
  h->pid = pid;
  h->probe_address = probe_address;
  h->capacity = capacity;
  h->owner_rank = owner_rank;
  h->rings = static_cast<int32_t>(senders.size());
  auto* ranks = reinterpret_cast<int32_t*>(base + sizeof(SegmentHeader));
  for (size_t i = 0; i < senders.size(); ++i) {
    ranks[i] = senders[i];
    new (base + rings_offset(h->rings) + i * ring_stride(capacity)) RingControl();
  }
  // Published last: a reader that sees the magic sees a formatted segment.
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kSegmentMagic;
}

Inbox::Inbox(std::byte* base, size_t size, const std::string& what) : base_(base), what_(what) {
  const SegmentHeader& h = header();
  bool ok = size >= sizeof(SegmentHeader) && h.magic == kSegmentMagic && h.rings >= 0 &&
            h.capacity >= kLine && (h.capacity & (h.capacity - 1)) == 0 &&
            size >= bytes(h.rings, h.capacity);
  if (!ok) {
    throw Error(ErrorCode::kInternal,
                what + " is not a weft inbox of the expected size (a stale or foreign segment)");
  }
}

RingView Inbox::ring_for(int sender) const {
  const SegmentHeader& h = header();
  auto* ranks = reinterpret_cast<const int32_t*>(base_ + sizeof(SegmentHeader));
  for (int i = 0; i < h.rings; ++i) {
    if (ranks[i] != sender) continue;
    std::byte* ring =
        base_ + rings_offset(h.rings) + static_cast<uint64_t>(i) * ring_stride(h.capacity);
    return {reinterpret_cast<RingControl*>(ring), ring + sizeof(RingControl), h.capacity};
  }
  throw Error(ErrorCode::kInternal,
              what_ + " has no ring for rank " + std::to_string(sender) +
                  " (the ranks disagree about which of them share this host)");
}

}  // namespace weft::transport::shm

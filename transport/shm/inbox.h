// The layout of a rank's inbox: the shared-memory segment through which it receives
// from the other ranks of its host. One single-producer single-consumer ring per local
// sender; the receiver creates and formats the segment, each sender maps it and writes
// into its own ring.
//
//   SegmentHeader | senders' ranks (int32 each) | ring 0 | ring 1 | ...
//   ring: RingControl (tail and doorbell flags on separate cache lines, the
//         single-copy slots) | `capacity` bytes of records
//
// A record is a 64-byte FrameHeader, then its payload padded to 64 bytes, at a position
// that is a multiple of 64, so a header never wraps around the end of the ring (a
// payload may, and is then copied in two pieces). Positions are byte counts that only
// grow; a position's place in the ring is position & (capacity - 1). The first 8 bytes
// of a header are its stamp: written last, never zero, and cleared at the next record's
// position before a record is stamped, so the consumer knows a record has arrived by
// polling the word at its tail. The producer learns of free space from `tail`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::transport::shm {

inline constexpr uint64_t kLine = 64;
// Large messages announced for single-copy reading at once, per direction.
inline constexpr int kCmaSlots = 16;

// A large message the receiver reads straight from the sender's memory
// (process_vm_readv). The state moves Posted -> Reading -> Done under the receiver, or
// Posted -> Withdrawn under a sender that gave the message up; Done and Withdrawn slots
// go back to Free.
enum SlotState : uint32_t { kSlotFree = 0, kSlotPosted, kSlotReading, kSlotDone, kSlotWithdrawn };

// The record announcing it is the message's FrameHeader alone, with the slot's index in
// `offset` and the message's size in `payload_bytes`.
struct alignas(kLine) CmaSlot {
  std::atomic<uint32_t> state{kSlotFree};
  uint64_t address = 0;  // in the sender's address space
};

struct RingControl {
  alignas(kLine) std::atomic<uint64_t> tail{0};  // bytes consumed; written by the consumer
  // Set by a side about to sleep in epoll; the other side rings its doorbell (one byte
  // on the pair's TCP socket) after the next change it would care about.
  alignas(kLine) std::atomic<uint32_t> consumer_asleep{0};
  alignas(kLine) std::atomic<uint32_t> producer_waiting{0};
  CmaSlot slots[kCmaSlots];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "rings need lock-free atomics");
static_assert(sizeof(RingControl) % kLine == 0, "records start on a cache line");

struct SegmentHeader {
  uint64_t magic;
  uint64_t nonce;          // random; also the value behind probe_address
  int64_t pid;             // the receiver
  uint64_t probe_address;  // where the receiver keeps `nonce`, to test process_vm_readv
  uint64_t capacity;       // bytes of records per ring, a power of two
  int32_t owner_rank;
  int32_t rings;
};
inline constexpr uint64_t kSegmentMagic = 0x316d687374666577;  // "weftshm1"

struct RingView {
  RingControl* control = nullptr;
  std::byte* records = nullptr;
  uint64_t capacity = 0;
};

class Inbox {
 public:
  static size_t bytes(int rings, uint64_t capacity);
  // Formats a zero-filled segment for `senders` (world ranks, in ring order).
  static void format(std::byte* base, int owner_rank, const std::vector<int>& senders,
                     uint64_t capacity, uint64_t nonce, int64_t pid, uint64_t probe_address);

  // Checks the header of a mapped segment; throws weft::Error naming `what` when it is
  // not an inbox or is smaller than it claims.
  Inbox(std::byte* base, size_t size, const std::string& what);

  const SegmentHeader& header() const { return *reinterpret_cast<const SegmentHeader*>(base_); }
  // The ring `sender` writes into; throws weft::Error if the inbox has none for it.
  RingView ring_for(int sender) const;

 private:
  std::byte* base_;
  std::string what_;
};

}  // namespace weft::transport::shm

// What the processes of one soft verbs fabric share: the records laid out in the files
// of the fabric directory, each mapped MAP_SHARED by every process that uses it. A field
// that another process reads while its writer may change it is a lock-free atomic; the
// plain fields around it are published by a release store to one of them and read after
// an acquire load of the same, so no reader sees a half-written record.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace weft::testing::soft_verbs {

static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "atomics in memory shared between processes must be lock-free");

// The state word of a queue pair whose owner destroyed it. Any other value is an
// ibv_qp_state.
inline constexpr uint32_t kStateDestroyed = 0xdead;

// Set in QpHeader::rq_taken by the owner when its queue pair goes to the error state:
// from then on no sender may take a posted receive, and the owner flushes the rest.
inline constexpr uint64_t kReceivesClosed = uint64_t{1} << 63;

struct SharedSge {
  uint64_t addr;
  uint32_t length;
  uint32_t lkey;
};

// One posted receive. The owner writes the first part before publishing rq_posted; the
// sender that consumes it writes the outcome before publishing rq_completed.
struct RecvSlot {
  uint64_t wr_id;
  int64_t posted_ns;  // CLOCK_MONOTONIC, one clock for every process of the host
  uint32_t num_sge;
  uint32_t status;  // ibv_wc_status
  uint32_t opcode;  // ibv_wc_opcode
  uint32_t byte_len;
  uint32_t imm_data;  // network order, as the sender posted it
  uint32_t wc_flags;
  uint32_t src_qp;
  uint32_t unused;
  // Followed by QpHeader::max_recv_sge SharedSge.
};
static_assert(sizeof(RecvSlot) % alignof(SharedSge) == 0);

// The head of a queue pair's file, "qp.<qpn>". Its receive queue is an SPSC ring in
// each direction of use: the owner produces posted receives (rq_posted) that the one
// remote queue pair consumes (rq_taken, rq_completed), and the owner consumes their
// outcomes in order. The fixed part is written before the file gets its name.
struct QpHeader {
  uint32_t qpn;
  int32_t owner_pid;
  uint32_t pd_id;         // the protection domain the owner's memory regions must share
  uint32_t rq_slots;      // max_recv_wr
  uint32_t max_recv_sge;  // SharedSge per slot
  uint32_t unused;
  char region_table[64];  // the owner's memory-region table, a file of the fabric

  // Written by the owner (and set to IBV_QPS_ERR by the remote queue pair when an
  // operation it carried out here failed). The attributes below it are stored before
  // the state that makes them valid (RTR), with release.
  std::atomic<uint32_t> state;
  std::atomic<uint32_t> dest_qpn;
  std::atomic<uint32_t> rq_psn;
  std::atomic<uint32_t> access_flags;  // qp_access_flags: what remote peers may do here
  std::atomic<uint32_t> min_rnr_timer;
  std::atomic<uint32_t> max_dest_rd_atomic;
  std::atomic<int64_t> ready_ns;  // when it last entered RTR

  alignas(64) std::atomic<uint64_t> rq_posted;  // receives posted, ever
  alignas(64) std::atomic<uint64_t> rq_taken;   // receives a sender claimed, | kReceivesClosed
  std::atomic<uint64_t> rq_completed;           // of those, the ones whose outcome is written
  // Followed by rq_slots RecvSlot, each with its sges.
};

inline size_t recv_slot_bytes(uint32_t max_recv_sge) {
  return sizeof(RecvSlot) + size_t{max_recv_sge} * sizeof(SharedSge);
}

inline size_t qp_file_bytes(uint32_t rq_slots, uint32_t max_recv_sge) {
  return sizeof(QpHeader) + size_t{rq_slots} * recv_slot_bytes(max_recv_sge);
}

// The slot of receive number `index` (counting every receive ever posted).
inline RecvSlot* recv_slot(QpHeader* header, uint64_t index) {
  auto* first = reinterpret_cast<std::byte*>(header + 1);
  return reinterpret_cast<RecvSlot*>(first + (index % header->rq_slots) *
                                                 recv_slot_bytes(header->max_recv_sge));
}

inline SharedSge* slot_sges(RecvSlot* slot) { return reinterpret_cast<SharedSge*>(slot + 1); }

// One memory region of a process's table, "mr.<pid>.<n>". The owner rewrites an entry
// only between two increments of `sequence` (odd while it does), so a remote reader that
// sees the same even value before and after its reads has a consistent copy.
struct RegionEntry {
  std::atomic<uint32_t> sequence;
  std::atomic<uint32_t> valid;
  std::atomic<uint32_t> lkey;
  std::atomic<uint32_t> rkey;
  std::atomic<uint32_t> access;  // ibv_access_flags
  std::atomic<uint32_t> pd_id;
  std::atomic<uint64_t> addr;
  std::atomic<uint64_t> length;
};

struct RegionTableHeader {
  uint32_t capacity;  // entries
  int32_t owner_pid;
  // Followed by `capacity` RegionEntry.
};

inline size_t region_table_bytes(uint32_t capacity) {
  return sizeof(RegionTableHeader) + size_t{capacity} * sizeof(RegionEntry);
}

inline RegionEntry* region_entry(RegionTableHeader* table, uint32_t index) {
  return reinterpret_cast<RegionEntry*>(table + 1) + index;
}

}  // namespace weft::testing::soft_verbs

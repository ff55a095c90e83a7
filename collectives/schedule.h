// Schedule: one rank's part of a collective, as a list of operations on three buffers
// (the caller's input and output, and weft's scratch), written as a sequential program.
//
//   send block i of the output to peer p, receive into scratch from peer q,
//   reduce output block j with the scratch, copy ...
//
// ScheduleBuilder works out the dependencies itself from the regions each operation
// reads and writes (read-after-write, write-after-read, write-after-write), so an
// algorithm is written as if it ran one step at a time, and the executor still runs
// everything that does not conflict at once: the sends and receives of one ring step,
// the segments of a pipeline. Sends to one peer are posted in program order, and so are
// receives from one peer, so messages match by the transport's non-overtaking order.
// The same Schedule runs over real links (executor.h) and in the simulator.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <vector>

namespace weft::collectives {

enum class Buffer : uint8_t { kInput, kOutput, kScratch };
inline constexpr int kNumBuffers = 3;

// `count` elements from element `offset` of a buffer.
struct Region {
  Buffer buffer = Buffer::kOutput;
  uint64_t offset = 0;
  uint64_t count = 0;
  // The part [from, from + n) of this region.
  Region sub(uint64_t from, uint64_t n) const { return {buffer, offset + from, n}; }
};

inline Region input_region(uint64_t offset, uint64_t count) {
  return {Buffer::kInput, offset, count};
}
inline Region output_region(uint64_t offset, uint64_t count) {
  return {Buffer::kOutput, offset, count};
}
inline Region scratch_region(uint64_t offset, uint64_t count) {
  return {Buffer::kScratch, offset, count};
}

enum class OpType : uint8_t {
  kSend,    // src to `peer`
  kRecv,    // from `peer` into dst; exactly dst.count elements must arrive
  kReduce,  // dst = a op b, element-wise (dst may be a or b exactly)
  kCopy,    // dst = a (a no-op when they are the same memory, as in in-place calls)
};

struct Op {
  OpType type;
  int peer = -1;  // group rank, for kSend and kRecv
  Region dst, a, b;
  uint32_t deps_begin = 0, deps_end = 0;  // into Schedule::deps
};

using OpId = uint32_t;

struct Schedule {
  std::vector<Op> ops;
  std::vector<OpId> deps;  // every op's dependencies, all earlier ops
  uint64_t scratch_count = 0;

  // Derived by ScheduleBuilder::finish() for ScheduleRun, so that running a cached
  // schedule again costs no more than copying `dependency_counts`:
  std::vector<uint32_t> dependency_counts;  // per op
  std::vector<uint32_t> dependents_begin;   // per op, into `dependents` (one more entry)
  std::vector<OpId> dependents;             // the ops that depend on each op
  // The sends to one peer, or the receives from one peer, in program order: channel c
  // holds channel_ops[channel_begin[c] .. channel_begin[c + 1]); channel_of[op] is
  // the channel of a send or receive.
  std::vector<uint32_t> channel_begin;
  std::vector<OpId> channel_ops;
  std::vector<uint32_t> channel_of;
};

class ScheduleBuilder {
 public:
  ScheduleBuilder() = default;
  // In-place calls: buffer `inner` is part of buffer `outer`, from element `offset` on.
  // Hazards are then tracked on the memory itself.
  void alias(Buffer inner, Buffer outer, uint64_t offset);

  // `after`: dependencies the regions do not show (zero-byte messages of a barrier).
  OpId send(int peer, Region src, std::initializer_list<OpId> after = {}) {
    return send(peer, src, std::span<const OpId>(after.begin(), after.size()));
  }
  OpId recv(int peer, Region dst, std::initializer_list<OpId> after = {}) {
    return recv(peer, dst, std::span<const OpId>(after.begin(), after.size()));
  }
  OpId send(int peer, Region src, std::span<const OpId> after);
  OpId recv(int peer, Region dst, std::span<const OpId> after);
  OpId reduce(Region dst, Region a, Region b);
  OpId copy(Region dst, Region src);

  // Reserves `count` elements of scratch and returns them.
  Region allocate_scratch(uint64_t count);

  bool aliased() const { return aliased_; }
  Schedule finish() &&;

  // A phase of a composed algorithm (algorithms/hierarchical.cc): while a view is set,
  // the ops added come from a generator written for a group of its own. Its peer p is
  // group rank ranks[p]; its input is buffer `input` (kOutput, or kScratch, for a phase
  // that works on what an earlier phase left there) from element `input_offset`; its
  // output is buffer `output` from element `output_offset`. The scratch it allocates is
  // the builder's, after every region allocated before.
  struct View {
    const std::vector<int>* ranks = nullptr;
    Buffer input = Buffer::kInput;
    uint64_t input_offset = 0;
    uint64_t output_offset = 0;
    Buffer output = Buffer::kOutput;
  };
  // Null: no view. The view must outlive the ops added under it.
  void set_view(const View* view) { view_ = view; }

 private:
  struct Access {
    uint64_t end = 0;
    int64_t writer = -1;
    std::vector<OpId> readers;  // since the last write
  };
  using Accesses = std::map<uint64_t, Access>;  // by start element; non-overlapping

  OpId add(Op op, std::span<const OpId> after, std::initializer_list<Region> reads,
           std::initializer_list<Region> writes);
  // The buffer and offset hazards are tracked on (the outer one, for an aliased buffer).
  Region memory_of(Region r) const;
  // Makes `at` the start of an entry when it falls inside one.
  static void split(Accesses& accesses, uint64_t at);
  void track(Region r, bool write, OpId op, std::vector<OpId>& deps);

  // Where the current view's region and peer are in the whole schedule.
  Region viewed(Region r) const;
  int viewed_peer(int peer) const { return view_ == nullptr ? peer : (*view_->ranks)[peer]; }

  const View* view_ = nullptr;
  bool aliased_ = false;
  Buffer inner_ = Buffer::kInput, outer_ = Buffer::kOutput;
  uint64_t alias_offset_ = 0;
  Schedule schedule_;
  Accesses accesses_[kNumBuffers];
};

}  // namespace weft::collectives

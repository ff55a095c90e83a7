// SharedArena: one shared-memory segment per group whose members all share memory (one
// host, one IPC and PID namespace), in which the group's intra-node collectives work
// directly: every member stages its data in its own buffers there, and the others read
// (and reduce) it in place, with no message and no system call on the fast path.
//
// A collective runs as one or more rounds, numbered alike on every member (each member
// runs the same collectives in the same order). In round r a member
//   1. waits until every member has consumed round r-2 (its buffers of parity r % 2 are
//      then free again: buffers are double-buffered, so a fast member runs one round
//      ahead without waiting for the slowest),
//   2. stages its data in its buffer of parity r % 2 (or, up to 48 bytes, in its stage
//      line of that parity) and publishes r there with the signature of the call
//      (collective, op, dtype, counts, root),
//   3. reads what it needs once the others have published r (reduced r, for the sliced
//      all_reduce), checking their signature: a different one is a DesyncError naming
//      both calls, which the member that found it publishes for the others, and
//   4. marks r consumed.
// Counters are 32 bits, compared modulo 2^32. Waits spin briefly, then sleep on a futex
// of the counter (writers wake only when someone sleeps on it), and keep checking the
// engine's links (a dead member is a PeerError naming it), the failure flags of the
// others (a member that failed tells the rest why) and the deadline (TimeoutError naming
// the members that did not arrive). The spin makes no system call: the engine's links,
// which a check may have to read, are polled before each sleep.
//
// A member that fails a collective here marks itself failed for good: the arena's
// rounds no longer line up, so later collectives of the group fail at once with the
// first failure's reason rather than waiting for a round that never comes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "transport/shm/segment.h"

namespace weft::p2p {
class Engine;
}  // namespace weft::p2p

namespace weft::collectives {

// The layout of the segment: a header, one control block per member, then two staging
// buffers per member.
struct ArenaLayout {
  static constexpr uint64_t kMagic = 0x616e657261746677ull;  // "wftarena"
  // A line of counters and two stage lines, padded to four lines: no false sharing
  // with the neighbour's block through adjacent-line prefetch.
  static constexpr size_t kControlBytes = 256;
  // The header takes one control block's room, so that every control block starts on
  // a multiple of its own alignment (the segment is page-aligned).
  static constexpr size_t kHeaderBytes = kControlBytes;
  int members = 0;
  uint64_t buffer_bytes = 0;  // of each staging buffer

  size_t control_offset(int member) const { return kHeaderBytes + member * kControlBytes; }
  size_t buffer_offset(int member, uint32_t parity) const {
    return kHeaderBytes + members * kControlBytes + (2 * member + parity) * buffer_bytes;
  }
  size_t total_bytes() const { return buffer_offset(members, 0); }
};

// Why a member gave up; published in its control block for the others.
enum class ArenaFailure : uint32_t { kNone = 0, kDesync = 1, kTimeout = 2, kPeer = 3, kOther = 4 };

class SharedArena {
 public:
  struct Options {
    std::chrono::microseconds spin{50};  // busy-waiting before sleeping on the futex
    bool oversubscribed = false;         // more local ranks than cores: yield while spinning
  };

  // Maps `segment` (created and zero-filled by member 0; the header is written by
  // initialize_header()). `world_ranks[i]` is member i's world rank.
  SharedArena(transport::shm::Segment segment, ArenaLayout layout, int member,
              std::vector<int> world_ranks, Options options);
  ~SharedArena();
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  // Member 0, before the others open the segment.
  static void initialize_header(std::byte* base, const ArenaLayout& layout);
  // Throws weft::Error when `base` does not hold an arena of `layout`.
  static void check_header(const std::byte* base, const ArenaLayout& layout,
                           const std::string& name);

  int members() const { return layout_.members; }
  int member() const { return member_; }
  uint64_t buffer_bytes() const { return layout_.buffer_bytes; }
  const transport::shm::Segment& segment() const { return segment_; }
  void unlink_name() { segment_.unlink(); }

  // Collectives of the group take the arena one at a time, in the order of their tags
  // (the order every member calls them in): a blocking collective that overtook an
  // asynchronous one in this process waits for it here.
  class Turn {
   public:
    // Throws TimeoutError once `timeout` has passed.
    Turn(SharedArena& arena, uint32_t tag, std::chrono::milliseconds timeout);
    ~Turn() { release(); }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    void release();  // lets the next tag in (early, for a collective that runs elsewhere)

   private:
    SharedArena* arena_;
    bool held_ = true;
  };

  // What a member publishes with each round, for the others to compare with their own:
  // the call's stamp (collectives/call_stamp.h), which a DesyncError describes, and a
  // hash of what the stamp leaves out (the group's size, the counts of every form).
  struct Signature {
    uint64_t stamp = 0;
    uint32_t shape = 0;
    bool operator==(const Signature&) const = default;
  };

  // What one collective call needs while it runs its rounds.
  struct Call {
    p2p::Engine* engine = nullptr;
    Signature signature;
    std::chrono::milliseconds timeout{};
    // Taken from `timeout` when a wait first has to check it: most calls never read
    // the clock.
    std::optional<base::Deadline> deadline;
  };

  // Throws the first failure recorded here, if any (see the header comment).
  void throw_if_broken() const;
  // Records the failure of the collective being run (`e`'s type, and the rank a
  // PeerError names) and tells the others.
  void mark_failed(const std::exception& e);

  // Step 1: the next round's number, once its buffers are free on every member.
  uint32_t begin_round(Call& call);
  // Step 2: this member's data of `round` is staged.
  void publish_staged(Call& call, uint32_t round);
  // Step 3: waits until `member` published `round` (reduced it, with `reduced`) and checks
  // its signature.
  void wait_staged(Call& call, int member, uint32_t round);
  void wait_reduced(Call& call, int member, uint32_t round);
  void publish_reduced(uint32_t round);
  // Step 4.
  void consume(uint32_t round);

  // Member `member`'s staging buffer of `round`'s parity.
  std::byte* buffer(int member, uint32_t round) const {
    return segment_.data() + layout_.buffer_offset(member, round & 1u);
  }
  // Where this member stages `bytes` of `round`, and where `member` staged its: up to
  // kInlineBytes in the stage line itself, which the readers fetch anyway to see the
  // round published (one transfer between cores instead of two), else its buffer. Both
  // sides must pass the writer's byte count.
  static constexpr uint64_t kInlineBytes = 48;
  std::byte* staging(uint32_t round, uint64_t bytes) const;
  const std::byte* staged(int member, uint32_t round, uint64_t bytes) const;

 private:
  struct StageLine;
  struct Control;
  Control& control(int member) const;
  // Waits until `word` (one of `member`'s counters) reaches `round`; `what` names it
  // for a timeout.
  void wait_for(Call& call, int member, std::atomic<uint32_t>& word, uint32_t round,
                const char* what);
  // Between spins: the others' failure flags and the deadline (`now`), which need no
  // system call; and once the spin is over, before each sleep, the engine's links.
  void check_flags(Call& call, std::chrono::steady_clock::time_point now, uint32_t round,
                   int waiting_for, const char* what);
  void check_links(Call& call, int awaited);
  // The DesyncError of `member`'s round published with `theirs`; remembered for
  // mark_failed, which tells the others both calls.
  [[noreturn]] void throw_desync(Call& call, int member, const Signature& theirs);
  void publish(std::atomic<uint32_t>& counter, uint32_t value, Control& mine);

  transport::shm::Segment segment_;
  const ArenaLayout layout_;
  const int member_;
  const std::vector<int> world_ranks_;
  const Options options_;
  uint32_t round_ = 0;                    // the last round begun
  std::vector<uint32_t> known_consumed_;  // what each member was last seen to have consumed

  // Turns: the fast path reads next_tag_ alone; the mutex and condition variable are
  // for a collective that has to wait for an earlier one.
  std::atomic<uint32_t> next_tag_{0};
  std::atomic<int> turn_waiters_{0};
  std::mutex turn_mutex_;
  std::condition_variable turn_cv_;

  // The world rank this member's last timeout waited for, passed on to the others
  // with the failure so that they name it too; -1: none.
  std::atomic<int> timed_out_waiting_for_{-1};
  // The last disagreement this member found or learnt of from another member: the world
  // rank that found it, the one whose call differed (-1: none known), and the stamps of
  // both calls. Written and read by the thread running the collective.
  struct DesyncSeen {
    int finder = -1;
    int culprit = -1;
    uint64_t culprit_stamp = 0;
    uint64_t finder_stamp = 0;
  };
  DesyncSeen desync_seen_;
  std::atomic<bool> broken_{false};  // read on every call; the reason under the mutex
  mutable std::mutex failure_mutex_;
  std::string broken_reason_;
};

}  // namespace weft::collectives

// Point-to-point messages.
//
// An `int` dst or src is a WORLD rank, in every group, as in the original package, and
// must be a member of `group` (default: the world); GroupRank{r} passes the group's rank
// r instead (weft/group.h). Receives and probes report the sender's world rank as
// `source` and its group rank as `group_source`. A process that is not a member of
// `group` gets InvalidArgument. Tags are >= 0. Messages between one pair of processes
// in one group are received in the order they were sent (MPI's non-overtaking rule),
// whatever their sizes; a receive takes the first message that matches its source and
// tag. The receive buffer may be larger than the message (the Request says how many
// bytes arrived) but its dtype must be the sender's; a message larger than the buffer
// fails the receive with InvalidArgument and writes nothing. Zero-byte messages are
// allowed. Several threads may communicate at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "weft/group.h"
#include "weft/request.h"
#include "weft/tensor.h"
#include "weft/timeout.h"

namespace weft {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

// Blocks until the message has left this process's buffer (small messages) or has been
// matched and transferred (large ones).
void send(const Tensor& tensor, int dst, int tag = 0, const Group& group = Group(),
          Timeout timeout = kDefaultTimeout);

// What a blocking receive took: everything an irecv's Request would report, without
// the Request. It converts to the source's world rank, which is what recv returned
// before it said more, so `int from = recv(t);` keeps working; `recv(t).bytes` is the
// size, and `auto [source, tag, bytes, group_source] = recv(t);` takes it all.
struct RecvResult {
  int source;        // world rank of the sender
  int tag;           // the message's tag (the actual one, for a kAnyTag receive)
  uint64_t bytes;    // the message's size; the rest of the buffer is untouched
  int group_source;  // the sender's rank in the receive's group
  operator int() const noexcept { return source; }  // NOLINT: implicit on purpose
};

// Blocks until a matching message has arrived in `tensor`. A timeout withdraws the
// receive: weft never writes to `tensor` after recv has thrown.
RecvResult recv(const Tensor& tensor, int src = kAnySource, int tag = kAnyTag,
                const Group& group = Group(), Timeout timeout = kDefaultTimeout);

// A small message that the link to `dst` takes at once gives a Request that is complete
// already (is_completed() is true, and the buffer may be reused): it has left the buffer.
Request isend(const Tensor& tensor, int dst, int tag = 0, const Group& group = Group());
Request irecv(const Tensor& tensor, int src = kAnySource, int tag = kAnyTag,
              const Group& group = Group());
// A synchronous send (MPI_Issend): completes only once a matching receive has started
// taking the message, whatever its size (it always goes by the rendezvous protocol).
Request issend(const Tensor& tensor, int dst, int tag = 0, const Group& group = Group());

// The same with the peer as a group rank (GroupRank{kAnySource} is any source).
void send(const Tensor& tensor, GroupRank dst, int tag = 0, const Group& group = Group(),
          Timeout timeout = kDefaultTimeout);
RecvResult recv(const Tensor& tensor, GroupRank src, int tag = kAnyTag,
                const Group& group = Group(), Timeout timeout = kDefaultTimeout);
Request isend(const Tensor& tensor, GroupRank dst, int tag = 0, const Group& group = Group());
Request irecv(const Tensor& tensor, GroupRank src, int tag = kAnyTag, const Group& group = Group());
Request issend(const Tensor& tensor, GroupRank dst, int tag = 0, const Group& group = Group());

// What a probe found: a message that has arrived (wholly, or for a large message its
// announcement) and that no receive has taken yet.
struct ProbeResult {
  int source;  // world rank of the sender
  int tag;
  uint64_t bytes;    // the message's size
  DType dtype;       // the sender's dtype
  int group_source;  // the sender's rank in the probe's group
};

// Probing (MPI_Iprobe, MPI_Probe): whether a message matching (src, tag) in `group` has
// arrived and not been received yet. The message stays queued: the next receive that
// matches it takes it (the first matching message, as recv would), so probe(kAnySource,
// kAnyTag) then recv(t, result.source, result.tag) receives exactly the probed message,
// unless another thread receives in between. Arguments are checked as recv's.
//
// iprobe makes what progress it can without waiting; nullopt if no such message is there.
std::optional<ProbeResult> iprobe(int src = kAnySource, int tag = kAnyTag,
                                  const Group& group = Group());
// probe blocks until such a message is there, with recv's errors: TimeoutError at the
// deadline, PeerError when `src` is dead and nothing of its is queued, or (kAnySource)
// when a member of `group` crashes while it waits.
ProbeResult probe(int src = kAnySource, int tag = kAnyTag, const Group& group = Group(),
                  Timeout timeout = kDefaultTimeout);
// The same with the source as a group rank.
std::optional<ProbeResult> iprobe(GroupRank src, int tag = kAnyTag, const Group& group = Group());
ProbeResult probe(GroupRank src, int tag = kAnyTag, const Group& group = Group(),
                  Timeout timeout = kDefaultTimeout);

// Matched probing (MPI_Improbe, MPI_Mprobe): a message found as iprobe and probe find
// one, but taken out of matching at once, so that no receive can take it any more; it
// is received with imrecv alone, into a buffer chosen after seeing its size.
class MatchedMessage {
 public:
  MatchedMessage() = default;  // no message; valid() is false
  bool valid() const { return message_ != nullptr; }
  const ProbeResult& found() const { return found_; }

 private:
  friend struct runtime::Handles;
  ProbeResult found_{};
  std::shared_ptr<void> message_;  // the core's queued message
};

// iprobe's progress and errors; nullopt if no such message has arrived.
std::optional<MatchedMessage> improbe(int src = kAnySource, int tag = kAnyTag,
                                      const Group& group = Group());
// probe's wait and errors.
MatchedMessage mprobe(int src = kAnySource, int tag = kAnyTag, const Group& group = Group(),
                      Timeout timeout = kDefaultTimeout);
// The same with the source as a group rank.
std::optional<MatchedMessage> improbe(GroupRank src, int tag = kAnyTag,
                                      const Group& group = Group());
MatchedMessage mprobe(GroupRank src, int tag = kAnyTag, const Group& group = Group(),
                      Timeout timeout = kDefaultTimeout);
// Receives `message` (found in `group`) into `tensor`, as an irecv that matched it would;
// a message can be received once. InvalidArgument for an invalid message or another
// group's.
Request imrecv(const Tensor& tensor, MatchedMessage message, const Group& group = Group());

}  // namespace weft

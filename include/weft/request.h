// Request: the handle of an asynchronous operation (isend, irecv, and later the
// asynchronous collectives). Copies share one operation.
//
// The memory of the operation's tensor belongs to the operation until it completes:
// do not free or reuse it before wait() has returned or is_completed() returned true.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "weft/timeout.h"

namespace weft {

namespace base {
class Operation;
}
namespace runtime {
struct Handles;
}

class Request {
 public:
  Request() = default;  // an empty handle; valid() is false

  bool valid() const { return state_ != nullptr || sent_.has_value(); }

  // True once the operation has finished, successfully or not. Never waits for a peer:
  // it makes what progress it can without waiting, then answers. (A receive into a
  // device tensor that has arrived is copied to the device before it answers true.)
  bool is_completed() const;

  // Blocks until the operation finishes. Throws the operation's error if it failed, or
  // TimeoutError if `timeout` (default: the group's) passes first; after a timeout the
  // operation is still pending and may be waited for again.
  void wait(Timeout timeout = kDefaultTimeout) const;

  // Withdraws a receive that no message has matched yet: it completes at once, without
  // error, its buffer untouched, and cancelled() becomes true. Returns false, changing
  // nothing, for a send, a collective, or a receive already matched or complete (the
  // message it matched is received as usual): as with MPI_Cancel, a cancel may fail.
  bool cancel() const;
  bool cancelled() const;

  // For a completed receive: the sender's world rank, the message's tag and its size
  // in bytes; group_source() is the sender's rank in the receive's group (the same in
  // the world group). For a send: the destination, the tag and the bytes sent.
  int source() const;
  int group_source() const;
  int tag() const;
  uint64_t bytes() const;

  // All of the above at once (one look at the operation instead of five), for a
  // completed request.
  struct Outcome {
    int source;
    int group_source;
    int tag;
    uint64_t bytes;
    bool cancelled;
  };
  Outcome outcome() const;

 private:
  friend struct runtime::Handles;
  explicit Request(std::shared_ptr<base::Operation> state) : state_(std::move(state)) {}
  // A send whose message the link took at once (a small one): finished from the start,
  // with no operation behind it, so the handle itself keeps what it reports.
  struct Sent {
    int dst;        // world rank
    int group_dst;  // rank in the send's group
    int tag;
    uint64_t bytes;
  };
  explicit Request(const Sent& sent) : sent_(sent) {}
  // A point-to-point request or an asynchronous collective; null for a Sent one.
  std::shared_ptr<base::Operation> state_;
  std::optional<Sent> sent_;
};

}  // namespace weft

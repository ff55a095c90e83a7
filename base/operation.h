// Operation: what a weft::Request handle refers to. Point-to-point requests
// (p2p::RequestState) and asynchronous collectives (collectives::CollectiveRequest)
// each implement it in their own way, so the handle dispatches through this interface
// rather than on a kind field of one shared type.
#pragma once

#include <cstdint>

#include "weft/timeout.h"

namespace weft::base {

class Operation {
 public:
  // Which implementation this is: request sets sort their operations by it (a field,
  // because a dynamic_cast per request per poll was a measurable part of a small
  // message's cost).
  enum class Kind : uint8_t { kPointToPoint, kCollective };
  // What a finished operation reports: for a receive, the sender's world rank, the
  // message's tag and size, and the sender's rank in the group; for a send, the
  // destination (world and group rank), the tag and the bytes sent.
  struct Result {
    int source = -1;
    int tag = -1;
    uint64_t bytes = 0;
    bool cancelled = false;
    int group_source = -1;
  };

  virtual ~Operation() = default;
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  // Makes what progress it can without waiting, then says whether the operation has
  // finished, successfully or not.
  virtual bool test() = 0;
  // Blocks until it finishes and throws its error, if any, or TimeoutError once
  // `timeout` has passed (negative: the group's timeout); it then stays pending.
  virtual void wait(Timeout timeout) = 0;
  // Withdraws the operation if it still can be (an unmatched receive); false otherwise.
  virtual bool cancel() { return false; }
  virtual Result result() const = 0;

  Kind kind() const { return kind_; }

 protected:
  explicit Operation(Kind kind) : kind_(kind) {}

 private:
  const Kind kind_;
};

}  // namespace weft::base

// wait_any, wait_all, test_any, test_some: one wait (the engine's, which spins and then
// sleeps in epoll) for a whole set of requests, instead of a poll of each in turn.
#include "weft/request_sets.h"

#include <algorithm>
#include <string>

#include "base/deadline.h"
#include "collectives/collective_request.h"
#include "p2p/engine.h"
#include "p2p/request_state.h"
#include "runtime/group_record.h"
#include "weft/error.h"

namespace weft {
namespace {

using base::Operation;
using collectives::CollectiveRequest;
using p2p::RequestState;

// The only reads of Request's private state in this file: which kind of operation a
// request is, and whether it is done without making progress.
Operation* operation_of(const Request& request) { return runtime::Handles::operation(request); }
RequestState* p2p_of(Operation* op) {
  return op->kind() == Operation::Kind::kPointToPoint ? static_cast<RequestState*>(op) : nullptr;
}
CollectiveRequest* collective_of(Operation* op) {
  return op->kind() == Operation::Kind::kCollective ? static_cast<CollectiveRequest*>(op) : nullptr;
}
// A valid request with no operation (a send that went out at once) is done.
bool done_now(Operation* op) {
  if (op == nullptr) return true;
  if (RequestState* s = p2p_of(op)) return s->done.load(std::memory_order_acquire);
  return collective_of(op)->done();
}

// Completed, without polling: the operation's flag, then is_completed() for what a
// device receive still does once its message is in (is_completed never polls a done
// request).
bool completed_now(const Request& request) {
  return done_now(operation_of(request)) && request.is_completed();
}

std::optional<size_t> lowest_completed(std::span<const Request> requests) {
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].valid() && completed_now(requests[i])) return i;
  }
  return std::nullopt;
}

// The valid requests not done yet.
std::vector<Operation*> pending(std::span<const Request> requests) {
  std::vector<Operation*> ops;
  for (const Request& r : requests) {
    if (!r.valid()) continue;
    Operation* op = operation_of(r);
    if (!done_now(op)) ops.push_back(op);  // never null: done_now(nullptr) is true
  }
  return ops;
}

Timeout timeout_of(Operation* op) {
  if (RequestState* s = p2p_of(op)) return s->group->timeout;
  return collective_of(op)->timeout();
}

std::string describe(Operation* op) {
  if (RequestState* s = p2p_of(op)) return s->describe();
  return collective_of(op)->description();
}

// kDefaultTimeout: the longest of the requests' groups' timeouts, so that no request is
// given up on sooner than a wait for it alone would give up.
Timeout resolve(Timeout timeout, std::span<Operation* const> ops) {
  if (timeout.count() >= 0) return timeout;
  Timeout longest{0};
  for (Operation* op : ops) longest = std::max(longest, timeout_of(op));
  return longest;
}

std::string timeout_text(Timeout t) { return " (timeout " + std::to_string(t.count()) + " ms)"; }

// One round of progress for test_any and test_some: each peer's link once (an
// any-source receive's poll covers every link), as is_completed() on each request would,
// without polling one link once per request. Collectives progress in the background.
void progress_once(std::span<Operation* const> ops) {
  std::vector<int> polled;
  for (Operation* op : ops) {
    RequestState* s = p2p_of(op);
    if (!s || std::find(polled.begin(), polled.end(), s->peer_world) != polled.end()) continue;
    s->engine->test(*s);
    if (s->peer_world < 0) return;
    polled.push_back(s->peer_world);
  }
}

// Blocks until one of `states` (none done yet, at least one) is done, or throws
// TimeoutError at `deadline`; `op` and `timeout` are for its message.
void wait_for_one(std::span<Operation* const> states, base::Deadline deadline, const char* op,
                  Timeout timeout) {
  std::vector<RequestState*> p2p_states;
  std::vector<CollectiveRequest*> collective_states;
  for (Operation* s : states) {
    if (RequestState* p = p2p_of(s)) {
      p2p_states.push_back(p);
    } else {
      collective_states.push_back(collective_of(s));
    }
  }
  try {
    if (collective_states.empty()) {
      p2p_states[0]->engine->wait_any(p2p_states, deadline.remaining());
      return;
    }
    if (p2p_states.empty() && collective_states.size() == 1) {
      collective_states[0]->wait(deadline.remaining());
      return;
    }
  } catch (const TimeoutError& e) {
    // A collective's own message gives the timeout already.
    throw TimeoutError(std::string(op) + ": " + e.what() +
                       (collective_states.empty() ? timeout_text(timeout) : ""));
  }
  // A collective completes in the background thread, which wakes no one sleeping in the
  // engine: wait in short slices, looking at every request after each.
  constexpr Timeout kSlice{1};
  auto any_done = [&] { return std::any_of(states.begin(), states.end(), done_now); };
  while (!any_done()) {
    if (deadline.expired()) {
      throw TimeoutError(std::string(op) + ": " + describe(states[0]) +
                         ": not completed before the deadline (and " +
                         std::to_string(states.size() - 1) + " more operations pending)" +
                         timeout_text(timeout));
    }
    Timeout slice = std::min(kSlice, deadline.remaining());
    try {
      if (!p2p_states.empty()) {
        p2p_states[0]->engine->wait_any(p2p_states, slice);
      } else {
        collective_states[0]->wait(slice);
      }
    } catch (const TimeoutError&) {
      // The slice is over; look again.
    }
  }
}

}  // namespace

std::optional<size_t> wait_any(std::span<const Request> requests, Timeout timeout) {
  if (auto done = lowest_completed(requests)) return done;
  std::vector<Operation*> states = pending(requests);
  if (states.empty()) {
    // Every valid request is done (a device receive's copy failed in between) or none is
    // valid: nothing to wait for.
    return lowest_completed(requests);
  }
  Timeout t = resolve(timeout, states);
  wait_for_one(states, base::Deadline::after(t), "wait_any", t);
  return lowest_completed(requests);
}

void wait_all(std::span<const Request> requests, Timeout timeout) {
  std::vector<Operation*> states = pending(requests);
  if (!states.empty()) {
    Timeout t = resolve(timeout, states);
    base::Deadline deadline = base::Deadline::after(t);
    // One request at a time, in order, under one deadline: each wait then polls its
    // own peer's link directly, and the requests that completed meanwhile cost nothing.
    for (size_t i = 0; i < states.size(); ++i) {
      if (done_now(states[i])) continue;
      try {
        wait_for_one(std::span(&states[i], 1), deadline, "wait_all", t);
      } catch (const TimeoutError& e) {
        size_t left = std::count_if(states.begin() + i + 1, states.end(),
                                    [](Operation* s) { return !done_now(s); });
        if (left == 0) throw;
        throw TimeoutError(std::string(e.what()) + "; " + std::to_string(left) +
                           " more operations still pending");
      }
    }
  }
  // Every request is done: each wait() returns at once, the first failed one throwing.
  for (const Request& r : requests) {
    if (r.valid()) r.wait();
  }
}

std::optional<size_t> test_any(std::span<const Request> requests) {
  if (auto done = lowest_completed(requests)) return done;
  std::vector<Operation*> states = pending(requests);
  if (states.empty()) return lowest_completed(requests);
  progress_once(states);
  return lowest_completed(requests);
}

std::vector<size_t> test_some(std::span<const Request> requests) {
  std::vector<Operation*> states = pending(requests);
  if (!states.empty()) progress_once(states);
  std::vector<size_t> done;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].valid() && completed_now(requests[i])) done.push_back(i);
  }
  return done;
}

}  // namespace weft

// Waiting on several requests at once (MPI_Waitany, MPI_Waitall, MPI_Testany,
// MPI_Testsome). The waits spin briefly and then sleep, as Request::wait does, however
// many requests they cover.
//
// Empty handles (Request()) are passed over, as MPI passes over MPI_REQUEST_NULL, so a
// caller may keep a fixed array and clear the entries it is done with.
//
// "Completed" means what Request::is_completed means: finished, successfully or not.
// wait_any, test_any and test_some say *which* requests completed and never throw a
// failed operation's error, so one failure hides neither its index nor the others'
// outcomes: the caller learns how request i ended from requests[i].wait(), which
// returns at once for a completed request (throwing its error if it failed), and the
// other requests are left exactly as they were. wait_all, which has no index to report,
// throws the error of the first failed request (lowest index) once all have completed.
//
// Where several requests have completed, the lowest index is reported first.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "weft/request.h"
#include "weft/timeout.h"

namespace weft {

// Blocks until one of `requests` has completed and returns its index; nullopt at once
// when none is valid. Throws TimeoutError naming the operations still awaited if
// `timeout` (default: the longest of the requests' groups' timeouts) passes first; the
// requests stay pending and may be waited for again.
std::optional<size_t> wait_any(std::span<const Request> requests,
                               Timeout timeout = kDefaultTimeout);

// Blocks until every valid request has completed; then throws the error of the first
// that failed, if any (every other has completed too: its own wait() says how).
// TimeoutError, as wait_any's, if `timeout` passes first.
void wait_all(std::span<const Request> requests, Timeout timeout = kDefaultTimeout);

// Makes what progress it can without waiting, then returns the index of a completed
// request, or nullopt if none has completed (or none is valid).
std::optional<size_t> test_any(std::span<const Request> requests);

// As test_any, but returns the indices of every completed request, in increasing
// order; empty if none has completed.
std::vector<size_t> test_some(std::span<const Request> requests);

}  // namespace weft

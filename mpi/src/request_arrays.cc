// The wait and test functions over arrays of requests: MPI_Waitany, MPI_Waitall,
// MPI_Waitsome, MPI_Testany, MPI_Testall, MPI_Testsome.
//
// Most requests are weft operations (or a few of them: MPI_Isendrecv's two). Those are
// gathered into one array that weft's set functions cover at once: one round of
// progress to test them all, one sleeping wait (weft::wait_any) until one completes.
// The rest complete outside weft, and only polling finds them done: a generalized
// request (another thread calls MPI_Grequest_complete), a partitioned send whose
// partitions are not all ready. While one of those is awaited, weft's requests are
// waited for in short slices, or the loop pauses (pause_polling), between polls.
#include <chrono>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/grequests.h"
#include "mpi/src/objects.h"
#include "mpi/src/requests.h"
#include "weft/error.h"
#include "weft/request_sets.h"

namespace weft::mpi {
namespace {

// Where each active request of an array stands, after one round of progress.
struct Scan {
  int active = 0;                      // requests neither null nor inactive
  std::vector<int> done;               // indices of active requests that are done, increasing
  std::vector<weft::Request> awaited;  // weft operations not completed yet
  bool polled = false;                 // some request not done is not weft's: poll for it
};

Scan scan(int count, MPI_Request requests[]) {
  Scan s;
  enum : char { kInactive, kDone, kWeft, kPending };
  std::vector<char> state(count, kInactive);
  std::vector<weft::Request> operations;  // every weft operation of the active requests
  std::vector<int> owner;                 // the request of each
  // Most requests are one operation each: one allocation per array, not a regrowth.
  operations.reserve(count);
  owner.reserve(count);
  s.done.reserve(count);
  for (int i = 0; i < count; ++i) {
    if (is_inactive(requests[i])) continue;
    ++s.active;
    MPI_ABI_Request& r = request_of(requests[i]);
    if (r.extras().generalized) {
      state[i] = grequest_done(*r.extras().generalized) ? kDone : kPending;
      s.polled |= state[i] == kPending;
      continue;
    }
    if (r.extras().held && r.extras().held()) {
      state[i] = kPending;
      s.polled = true;
      continue;
    }
    size_t before = operations.size();
    for (const weft::Request& other : r.extras().also) operations.push_back(other);
    if (!r.proc_null && r.request.valid()) operations.push_back(r.request);
    owner.resize(operations.size(), i);
    // Nothing left in weft (a send to MPI_PROC_NULL, a file operation that completed at
    // once): done.
    state[i] = operations.size() == before ? kDone : kWeft;
  }
  if (!operations.empty()) {
    std::vector<size_t> completed = weft::test_some(operations);
    size_t next = 0;  // into `completed`, which is in increasing order
    for (size_t k = 0; k < operations.size(); ++k) {
      if (next < completed.size() && completed[next] == k) {
        ++next;
        continue;
      }
      state[owner[k]] = kPending;
      s.awaited.push_back(operations[k]);
    }
  }
  for (int i = 0; i < count; ++i) {
    if (state[i] == kWeft || state[i] == kDone) s.done.push_back(i);
  }
  return s;
}

// Whether every request of the array is null or a valid plain one (MPI_ABI_Request::plain)
// of a weft operation, not of a collective: MPI_Waitall's case for waiting on each in
// turn.
bool all_plain(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    const MPI_ABI_Request* r = request_or_null(requests[i]);
    if (r == nullptr || !r->plain() || r->collective || !r->request.valid()) return false;
  }
  return true;
}

// Blocks until an active request of the array is done, and returns the scan that found
// it, or that found none active.
Scan await_any(int count, MPI_Request requests[]) {
  for (int round = 0;; ++round) {
    Scan s = scan(count, requests);
    if (s.active == 0 || !s.done.empty()) return s;
    if (!s.polled) {
      // Sleeps as MPI_Wait does, with its timeout (the communicators' groups').
      weft::wait_any(s.awaited);
    } else if (!s.awaited.empty()) {
      try {
        weft::wait_any(s.awaited, std::chrono::milliseconds(1));
      } catch (const weft::TimeoutError&) {
        // Time to poll the others again.
      }
    } else {
      pause_polling(round);
    }
  }
}

// Completing several requests, as MPI_Waitall, MPI_Waitsome, MPI_Testall and
// MPI_Testsome do: a failure sets its status's MPI_ERROR and the others complete
// regardless; the call then returns MPI_ERR_IN_STATUS through the error handler of the
// first failed request's communicator.
class Completions {
 public:
  void complete(MPI_Request* request, MPI_Status* status, int index,
                weft::Timeout timeout = weft::kDefaultTimeout) {
    MPI_Comm comm = comm_of_request(*request);
    try {
      weft::mpi::complete(request, status, timeout);
      if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = MPI_SUCCESS;
    } catch (const std::exception& e) {
      if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error_class_of(e);
      timed_out_ = timed_out_ || dynamic_cast<const weft::TimeoutError*>(&e) != nullptr;
      if (failed_++ == 0) {
        comm_ = comm;
        first_failure_ = "request " + std::to_string(index) + ": " + e.what();
      }
    }
  }

  int result(const char* function) const {
    if (failed_ == 0) return MPI_SUCCESS;
    return handle_error(comm_, function, MPI_ERR_IN_STATUS, first_failure_);
  }
  // Some wait ran past its deadline.
  bool timed_out() const { return timed_out_; }

 private:
  int failed_ = 0;
  bool timed_out_ = false;
  MPI_Comm comm_ = MPI_COMM_WORLD;
  std::string first_failure_;
};

// MPI_Waitsome's and MPI_Testsome's last step: completes the requests `s` found done,
// or sets `*outcount` to MPI_UNDEFINED when none was active.
void complete_done(const Scan& s, MPI_Request requests[], int* outcount, int indices[],
                   MPI_Status statuses[], Completions& completions) {
  if (s.active == 0) {
    *outcount = MPI_UNDEFINED;
    return;
  }
  *outcount = 0;
  for (int i : s.done) {
    indices[*outcount] = i;
    completions.complete(&requests[i], status_at(statuses, *outcount), i);
    ++*outcount;
  }
}

}  // namespace
}  // namespace weft::mpi

using weft::mpi::mpi_call;

extern "C" {

int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return mpi_call("MPI_Waitany", MPI_COMM_WORLD, [&] {
    weft::mpi::Scan s = weft::mpi::await_any(count, requests);
    if (s.active == 0) {
      *index = MPI_UNDEFINED;
      weft::mpi::set_empty_status(status);
      return;
    }
    *index = s.done.front();
    weft::mpi::complete(&requests[*index], status);
  });
}
WEFT_MPI_ALIAS(Waitany)

int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  return mpi_call("MPI_Testany", MPI_COMM_WORLD, [&] {
    weft::mpi::Scan s = weft::mpi::scan(count, requests);
    if (!s.done.empty()) {
      *index = s.done.front();
      *flag = 1;
      weft::mpi::complete(&requests[*index], status);
      return;
    }
    // With no active request at all, the standard says flag is true and index undefined.
    *flag = s.active > 0 ? 0 : 1;
    *index = MPI_UNDEFINED;
    if (s.active == 0) weft::mpi::set_empty_status(status);
  });
}
WEFT_MPI_ALIAS(Testany)

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  // Every request is completed, even after one fails; with MPI_ERRORS_RETURN the failure
  // is MPI_ERR_IN_STATUS and each status says how its request ended.
  weft::mpi::Completions completions;
  weft::Timeout timeout = weft::kDefaultTimeout;
  if (weft::mpi::all_plain(count, requests)) {
    // Each waited for in turn, as MPI_Wait would (every wait progresses them all): the
    // array's scan and the set's vectors cost more than the waits themselves when the
    // requests are small messages. Once one wait runs past its deadline, the others
    // fail at once if not done, as below.
    for (int i = 0; i < count; ++i) {
      completions.complete(&requests[i], weft::mpi::status_at(statuses, i), i,
                           completions.timed_out() ? weft::Timeout(0) : timeout);
    }
    return completions.result("MPI_Waitall");
  }
  int code = mpi_call("MPI_Waitall", MPI_COMM_WORLD, [&] {
    // One sleeping wait for every weft operation first; each request then completes
    // without waiting (or with its own wait, for one that completes outside weft).
    weft::mpi::Scan s = weft::mpi::scan(count, requests);
    try {
      weft::wait_all(s.awaited);
    } catch (const std::exception&) {
      // A failed operation's error is its request's, reported below. Past the deadline,
      // the operations still pending fail at once rather than each waiting anew.
      for (const weft::Request& r : s.awaited) {
        if (!r.is_completed()) timeout = weft::Timeout(0);
      }
    }
  });
  if (code != MPI_SUCCESS) return code;  // an invalid handle
  for (int i = 0; i < count; ++i) {
    completions.complete(&requests[i], weft::mpi::status_at(statuses, i), i, timeout);
  }
  return completions.result("MPI_Waitall");
}
WEFT_MPI_ALIAS(Waitall)

int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  weft::mpi::Completions completions;
  int code = mpi_call("MPI_Testall", MPI_COMM_WORLD, [&] {
    weft::mpi::Scan s = weft::mpi::scan(count, requests);
    *flag = static_cast<int>(s.done.size()) == s.active ? 1 : 0;
  });
  if (code != MPI_SUCCESS || !*flag) return code;
  for (int i = 0; i < count; ++i) {
    completions.complete(&requests[i], weft::mpi::status_at(statuses, i), i);
  }
  return completions.result("MPI_Testall");
}
WEFT_MPI_ALIAS(Testall)

int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                  MPI_Status statuses[]) {
  weft::mpi::Completions completions;
  int code = mpi_call("MPI_Waitsome", MPI_COMM_WORLD, [&] {
    weft::mpi::complete_done(weft::mpi::await_any(incount, requests), requests, outcount, indices,
                             statuses, completions);
  });
  return code != MPI_SUCCESS ? code : completions.result("MPI_Waitsome");
}
WEFT_MPI_ALIAS(Waitsome)

int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                  MPI_Status statuses[]) {
  weft::mpi::Completions completions;
  int code = mpi_call("MPI_Testsome", MPI_COMM_WORLD, [&] {
    weft::mpi::complete_done(weft::mpi::scan(incount, requests), requests, outcount, indices,
                             statuses, completions);
  });
  return code != MPI_SUCCESS ? code : completions.result("MPI_Testsome");
}
WEFT_MPI_ALIAS(Testsome)

}  // extern "C"

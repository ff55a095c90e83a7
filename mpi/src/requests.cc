#include "mpi/src/requests.h"

#include <chrono>
#include <thread>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/grequests.h"
#include "mpi/src/objects.h"

namespace weft::mpi {

namespace {

// The status of a completed request: a receive's source, tag, size and cancelled flag;
// the empty status for a send or a collective.
void fill_status(const MPI_ABI_Request& r, MPI_Status* status) {
  if (r.extras().generalized) {
    grequest_status(*r.extras().generalized, status);
  } else if (!r.is_receive) {
    set_empty_status(status);
  } else if (r.proc_null) {
    set_proc_null_status(status);
  } else if (status != MPI_STATUS_IGNORE) {
    weft::Request::Outcome outcome = r.request.outcome();
    set_status(status, outcome.group_source - r.source_offset, outcome.tag, outcome.bytes);
    if (outcome.cancelled) set_cancelled(status);
  }
}

// Frees a request that has completed and not persistent, setting the handle to null.
void free_request(MPI_Request* request) {
  MPI_ABI_Request* r = *request;
  r->magic = 0;  // a later use of the stale handle is refused, while the block is unused
  delete r;
  *request = MPI_REQUEST_NULL;
}

}  // namespace

bool is_done(MPI_Request request) {
  MPI_ABI_Request& r = request_of(request);
  if (r.extras().generalized) return grequest_done(*r.extras().generalized);
  if (r.extras().held && r.extras().held()) return false;
  for (const weft::Request& other : r.extras().also) {
    if (!other.is_completed()) return false;
  }
  return r.proc_null || !r.request.valid() || r.request.is_completed();
}

bool is_inactive(MPI_Request request) {
  if (request == MPI_REQUEST_NULL) return true;
  MPI_ABI_Request& r = request_of(request);
  return r.extras().restart && !r.active;
}

void complete(MPI_Request* request, MPI_Status* status, weft::Timeout timeout) {
  if (*request == MPI_REQUEST_NULL) {
    set_empty_status(status);
    return;
  }
  MPI_ABI_Request& r = request_of(*request);
  if (r.plain()) {
    // A plain operation's request: its wait and its status, and it is freed whether the
    // wait succeeded or not.
    try {
      r.request.wait(timeout);
    } catch (...) {
      free_request(request);
      throw;
    }
    fill_status(r, status);
    free_request(request);
    return;
  }
  if (r.extras().restart && !r.active) {
    set_empty_status(status);
    return;
  }
  if (r.extras().generalized) {
    complete_grequest(request, status);
    return;
  }
  auto release = [&] {
    if (r.extras().restart) {  // persistent: kept for the next MPI_Start
      r.active = false;
      r.request = weft::Request();
      r.more().also.clear();
      return;
    }
    free_request(request);
  };
  try {
    for (const weft::Request& other : r.extras().also) other.wait(timeout);
  } catch (...) {
    release();
    throw;
  }
  if (r.proc_null) {
    fill_status(r, status);
    release();
    return;
  }
  try {
    r.request.wait(timeout);
  } catch (...) {
    release();
    throw;
  }
  if (r.extras().finish) {
    try {
      r.extras().finish();
    } catch (...) {
      release();
      throw;
    }
  }
  fill_status(r, status);
  release();
}

MPI_Comm comm_of_request(MPI_Request request) {
  try {
    return request == MPI_REQUEST_NULL ? MPI_COMM_WORLD : request_of(request).comm;
  } catch (const MpiError&) {
    return MPI_COMM_WORLD;
  }
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

void pause_polling(int round) {
  // About a millisecond of yields, then naps short against a message's latency over
  // TCP and long against a core's time slice.
  if (round < 1000) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace weft::mpi

using weft::mpi::complete;
using weft::mpi::is_done;
using weft::mpi::is_inactive;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  return mpi_call("MPI_Wait", weft::mpi::comm_of_request(*request), [&] {
    weft::mpi::reap_detached();
    complete(request, status);
  });
}
WEFT_MPI_ALIAS(Wait)

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return mpi_call("MPI_Test", weft::mpi::comm_of_request(*request), [&] {
    weft::mpi::reap_detached();
    *flag = is_inactive(*request) || is_done(*request) ? 1 : 0;
    if (*flag) complete(request, status);
  });
}
WEFT_MPI_ALIAS(Test)

int PMPI_Request_free(MPI_Request* request) {
  return mpi_call("MPI_Request_free", weft::mpi::comm_of_request(*request), [&] {
    MPI_ABI_Request& r = weft::mpi::request_of(*request);
    if (r.extras().generalized) return weft::mpi::free_grequest(request);
    // The operation goes on; MPI_Finalize waits for it if nobody else does.
    if (r.request.valid() && !r.request.is_completed()) {
      weft::mpi::library().detached.push_back(r.request);
    }
    for (const weft::Request& other : r.extras().also) {
      if (!other.is_completed()) weft::mpi::library().detached.push_back(other);
    }
    r.magic = 0;
    delete &r;
    *request = MPI_REQUEST_NULL;
  });
}
WEFT_MPI_ALIAS(Request_free)

// Like MPI_Test, but the request stays as it is: neither freed nor made inactive.
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return mpi_call("MPI_Request_get_status", weft::mpi::comm_of_request(request), [&] {
    if (is_inactive(request)) {
      *flag = 1;
      weft::mpi::set_empty_status(status);
      return;
    }
    *flag = is_done(request) ? 1 : 0;
    if (*flag) weft::mpi::fill_status(weft::mpi::request_of(request), status);
  });
}
WEFT_MPI_ALIAS(Request_get_status)

// A receive no message has matched yet is withdrawn; anything else (a send, a matched
// receive) completes as usual, which the standard allows: MPI_Test_cancelled tells.
int PMPI_Cancel(MPI_Request* request) {
  return mpi_call("MPI_Cancel", weft::mpi::comm_of_request(*request), [&] {
    if (*request == MPI_REQUEST_NULL) throw MpiError(MPI_ERR_REQUEST, "the request is null");
    MPI_ABI_Request& r = weft::mpi::request_of(*request);
    if (r.collective) {
      throw MpiError(MPI_ERR_REQUEST,
                     "a non-blocking collective cannot be cancelled (the standard forbids it)");
    }
    if (r.extras().restart && !r.active) {
      throw MpiError(MPI_ERR_REQUEST, "the persistent request is not active");
    }
    if (r.extras().generalized) weft::mpi::cancel_grequest(*r.extras().generalized);
    if (r.request.valid()) r.request.cancel();
  });
}
WEFT_MPI_ALIAS(Cancel)

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  return mpi_call("MPI_Test_cancelled", MPI_COMM_WORLD,
                  [&] { *flag = weft::mpi::status_cancelled(*status) ? 1 : 0; });
}
WEFT_MPI_ALIAS(Test_cancelled)

}  // extern "C"

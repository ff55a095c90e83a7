#include "mpi/src/grequests.h"

#include <memory>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/requests.h"

using weft::mpi::Grequest;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

void check(int code, const char* callback) {
  if (code != MPI_SUCCESS) {
    throw MpiError(code, std::string("the generalized request's ") + callback +
                             " callback returned error " + std::to_string(code));
  }
}

void forget(MPI_ABI_Request& r) {
  r.magic = 0;
  delete &r;
}

}  // namespace

namespace weft::mpi {

bool grequest_done(const Grequest& g) { return g.completed.load(); }

void grequest_status(Grequest& g, MPI_Status* status) {
  // The query callback runs even when the program ignores the status.
  MPI_Status ignored;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &ignored : status;
  set_empty_status(s);
  int code = g.query_fn(g.extra_state, s);
  if (status != MPI_STATUS_IGNORE && code != MPI_SUCCESS) status->MPI_ERROR = code;
  check(code, "query");
}

void complete_grequest(MPI_Request* request, MPI_Status* status) {
  MPI_ABI_Request& r = request_of(*request);
  std::shared_ptr<Grequest> g = r.extras().generalized;
  // Another thread of the program completes it: give it the cores.
  for (int round = 0; !g->completed.load(); ++round) pause_polling(round);
  forget(r);
  *request = MPI_REQUEST_NULL;
  int free_code = MPI_SUCCESS;
  try {
    grequest_status(*g, status);
  } catch (...) {
    g->free_fn(g->extra_state);
    throw;
  }
  free_code = g->free_fn(g->extra_state);
  check(free_code, "free");
}

void free_grequest(MPI_Request* request) {
  MPI_ABI_Request& r = request_of(*request);
  std::shared_ptr<Grequest> g = r.extras().generalized;
  *request = MPI_REQUEST_NULL;
  {
    std::lock_guard lock(g->mutex);
    if (!g->completed.load()) {
      g->freed = true;  // MPI_Grequest_complete, still to come, frees it
      return;
    }
  }
  forget(r);
  check(g->free_fn(g->extra_state), "free");
}

void cancel_grequest(Grequest& g) {
  check(g.cancel_fn(g.extra_state, g.completed.load() ? 1 : 0), "cancel");
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                        MPI_Request* request) {
  return mpi_call("MPI_Grequest_start", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Grequest_start");
    require_pointer(request, "request");
    if (query_fn == nullptr) throw MpiError(MPI_ERR_ARG, "query_fn is NULL");
    if (free_fn == nullptr) throw MpiError(MPI_ERR_ARG, "free_fn is NULL");
    if (cancel_fn == nullptr) throw MpiError(MPI_ERR_ARG, "cancel_fn is NULL");
    auto g = std::make_shared<Grequest>();
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    auto* r = new MPI_ABI_Request();
    r->comm = MPI_COMM_WORLD;
    r->more().generalized = std::move(g);
    *request = reinterpret_cast<MPI_Request>(r);
  });
}
WEFT_MPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request) {
  return mpi_call("MPI_Grequest_complete", MPI_COMM_WORLD, [&] {
    MPI_ABI_Request& r = weft::mpi::request_of(request);
    if (!r.extras().generalized) {
      throw MpiError(MPI_ERR_REQUEST, "the request is not a generalized request");
    }
    std::shared_ptr<Grequest> g = r.extras().generalized;
    {
      std::lock_guard lock(g->mutex);
      if (g->completed.load()) {
        throw MpiError(MPI_ERR_REQUEST, "the generalized request was completed already");
      }
      g->completed = true;
      if (!g->freed) return;
    }
    // MPI_Request_free came first: the request goes now.
    forget(r);
    check(g->free_fn(g->extra_state), "free");
  });
}
WEFT_MPI_ALIAS(Grequest_complete)

}  // extern "C"

#include "mpi/src/started.h"

#include "mpi/src/objects.h"

namespace weft::mpi {

void wait_for(Started started) {
  if (started.request.valid()) started.request.wait();
  if (started.finish) started.finish();
}

MPI_Request as_request(Started started, MPI_Comm comm) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->request = started.request;
  // A collective that needed no core operation completes at once, as a send to
  // MPI_PROC_NULL does; its finish step has nothing to wait for either.
  if (!started.request.valid()) {
    if (started.finish) started.finish();
    r->proc_null = true;
  } else {
    r->finish = std::move(started.finish);
    r->keep_alive = std::move(started.keep_alive);
  }
  return r;
}

}  // namespace weft::mpi

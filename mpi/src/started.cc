#include "mpi/src/started.h"

#include <utility>

#include "mpi/src/objects.h"

namespace weft::mpi {

void Started::keep(std::shared_ptr<void> more) {
  if (!more) return;
  if (!keep_alive) {
    keep_alive = std::move(more);
    return;
  }
  keep_alive = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(
      std::move(keep_alive), std::move(more));
}

void Started::then(std::function<void()> step) {
  if (!finish) {
    finish = std::move(step);
    return;
  }
  finish = [first = std::move(finish), second = std::move(step)] {
    first();
    second();
  };
}

void wait_for(Started started) {
  if (started.request.valid()) started.request.wait();
  if (started.finish) started.finish();
}

MPI_Request as_request(Started started, MPI_Comm comm) {
  auto* r = new MPI_ABI_Request();
  r->comm = comm;
  r->collective = true;
  r->request = started.request;
  // A collective that needed no core operation completes at once, as a send to
  // MPI_PROC_NULL does; its finish step has nothing to wait for either.
  if (!started.request.valid()) {
    if (started.finish) started.finish();
    r->proc_null = true;
  } else {
    r->more().finish = std::move(started.finish);
    r->more().keep_alive = std::move(started.keep_alive);
  }
  return r;
}

}  // namespace weft::mpi

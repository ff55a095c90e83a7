// A collective as started: the core's request for it (none when it finished during the
// call), what remains to do once that completes, and the buffers that must live until
// then. The blocking form waits for it at once; the non-blocking form (MPI_Iallreduce
// and the rest) hands it to the program as an MPI_Request.
#pragma once

#include <mpi.h>
#include <weft/request.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace weft::mpi {

struct Started {
  // One with nothing to do after the core's request.
  static Started of(weft::Request request) {
    Started started;
    started.request = std::move(request);
    return started;
  }

  // Adds `more` to what must live until the end.
  void keep(std::shared_ptr<void> more);
  // Adds a step after the others of `finish` (unpacking staged blocks after combining).
  void then(std::function<void()> step);

  weft::Request request;
  std::function<void()> finish;
  std::shared_ptr<void> keep_alive;  // buffers and counts the core reads until the end
};

// Runs the blocking form of a core collective, or starts the non-blocking one.
template <typename Blocking, typename Async>
weft::Request run_collective(bool async, Blocking blocking, Async start) {
  if (async) return start();
  blocking();
  return weft::Request();
}

// The blocking form's end: waits, then finishes.
void wait_for(Started started);

// The non-blocking form's request.
MPI_Request as_request(Started started, MPI_Comm comm);

}  // namespace weft::mpi

// WindowService: one-sided communication by active messages, for windows whose members
// do not all share memory (ranks on several hosts), or when WEFT_RMA=messages asks for
// it.
//
// Each member runs a service thread for the window. An origin sends every operation
// (put, get, accumulate, compare-and-swap, lock, unlock) to the target's service over
// weft's links, on the window's own communicator with private tags, and waits for the
// reply: so an operation is complete when its call returns, as on one host, and a
// target that computes without calling MPI still serves it. The service carries out
// requests one at a time, which makes accumulates atomic per element without a lock,
// and keeps the target's MPI_Win_lock state (shared holders, or one exclusive holder,
// and a queue of waiting origins, granted in order). Operations of a rank on its own
// memory go through its service too, so that they are ordered with everyone else's.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "mpi/src/derived_types.h"
#include "weft/group.h"

namespace weft::mpi {

class WindowMemory;

class WindowService {
 public:
  // Starts this rank's service of `memory`'s window, whose members are `group`'s.
  WindowService(const weft::Group& group, const WindowMemory& memory);
  // Stops the service; the window's members have synchronised (MPI_Win_free's barrier),
  // so no request for it is still coming.
  ~WindowService();
  WindowService(const WindowService&) = delete;
  WindowService& operator=(const WindowService&) = delete;

  // The origin's side: each sends one request to `rank`'s service and waits for its
  // reply, throwing MpiError with the target's error when it failed there.
  void put(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
           const std::byte* packed);
  void get(int rank, uint64_t address, uint64_t count, const Typemap& typemap, std::byte* packed);
  // `origin` is ignored for MPI_NO_OP; `result` (may be null) gets the old values.
  void accumulate(int rank, uint64_t address, uint64_t count, const Typemap& typemap,
                  MPI_Datatype element, MPI_Op op, const std::byte* origin, std::byte* result);
  void compare_and_swap(int rank, uint64_t address, const Typemap& typemap, const std::byte* origin,
                        const std::byte* compare, std::byte* result);
  void lock(int rank, int type);  // returns once granted
  void unlock(int rank, int type);

 private:
  struct Request;
  // Sends a request (its header, the target typemap's segments, then `payload`) and
  // returns the reply's data.
  std::vector<std::byte> call(int rank, const Request& request, const Typemap* typemap,
                              const std::byte* payload, uint64_t payload_bytes,
                              uint64_t reply_bytes);
  void serve();
  // Carries out one request from `source`; false for the stop request.
  bool handle(int source, const std::vector<std::byte>& message);
  void reply(int to, int error_class, const std::string& message, const std::byte* data,
             uint64_t bytes);
  void grant_waiting();

  weft::Group group_;
  const WindowMemory& memory_;
  std::mutex calls_;  // one request at a time per process: replies come in order
  // The lock state of this rank's memory (the service thread's alone).
  int holders_ = 0;                           // -1: held exclusively; n > 0: by n sharers
  std::vector<std::pair<int, int>> waiting_;  // (origin, lock type), in arrival order
  std::thread thread_;
};

}  // namespace weft::mpi

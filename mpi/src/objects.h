// The objects behind MPI handles. A handle is either one of the standard's predefined
// small values (MPI_COMM_WORLD is 0x101) or the address of one of these objects, which
// start with a magic number so that a stale or garbage handle is an MPI_ERR_COMM (or
// _REQUEST) instead of a crash.
#pragma once

#include <mpi.h>
#include <weft/weft.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/block_pool.h"

namespace weft::mpi {
struct Topology;
struct Grequest;
class AttachedBuffer;  // mpi/src/attached_buffer.h
struct Partitioned;    // mpi/src/partitioned.cc
}  // namespace weft::mpi

struct MPI_ABI_Comm {
  static constexpr uint32_t kMagic = 0x57434f4d;  // "WCOM"
  uint32_t magic = kMagic;
  weft::Group group;
  std::vector<int> world_ranks;  // by rank in this communicator
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;  // for messages: "MPI_COMM_WORLD", "a communicator of 2"
  // MPI_Comm_get_name's answer: the predefined communicators' own names, "" for a new
  // one until MPI_Comm_set_name.
  std::string given_name;
  // The process topology (MPI_Cart_create, ...), shared by duplicates; null for none.
  std::shared_ptr<const weft::mpi::Topology> topology;
  // MPI_Comm_set_info's hints, in the order first set (MPI_Comm_get_info returns them).
  std::vector<std::pair<std::string, std::string>> hints;
  // An intercommunicator's (mpi/src/intercomm.h): `group` then spans both groups, the
  // local one from union rank local_offset and the remote one from remote_offset, so a
  // point-to-point rank names the remote group; world_ranks are the local group's.
  bool inter = false;
  std::vector<int> remote_world_ranks;
  int local_offset = 0;
  int remote_offset = 0;  // also 0 for an intracommunicator: ranks are the core's
  // Both groups again, in a context of their own: the intercommunicator collectives'
  // messages never meet the program's point-to-point ones.
  weft::Group collective_group;
  // MPI_Comm_attach_buffer's buffer, which buffered sends on it use; null until then.
  std::shared_ptr<weft::mpi::AttachedBuffer> buffer;
  // The buffer of the session the communicator derives from (MPI_Session_attach_buffer),
  // used when the communicator has none of its own; null outside sessions.
  std::shared_ptr<weft::mpi::AttachedBuffer> session_buffer;
};

// A group: world ranks by rank in the group. MPI_GROUP_EMPTY is a predefined one.
struct MPI_ABI_Group {
  static constexpr uint32_t kMagic = 0x57475250;  // "WGRP"
  uint32_t magic = kMagic;
  std::vector<int> world_ranks;
  // The buffer of the session the group came from (MPI_Group_from_session_pset), which
  // buffered sends on communicators made from it use; null for other groups.
  std::shared_ptr<weft::mpi::AttachedBuffer> session_buffer;
};

struct MPI_ABI_Request {
  static constexpr uint32_t kMagic = 0x57524551;  // "WREQ"
  // Made and freed once per non-blocking operation: from blocks reused, not the heap.
  WEFT_BLOCK_POOLED(MPI_ABI_Request)
  uint32_t magic = kMagic;
  weft::Request request;  // not valid() when the operation completed at once
  bool is_receive = false;
  bool proc_null = false;         // to or from MPI_PROC_NULL: completes empty
  bool collective = false;        // a non-blocking collective's (MPI_Cancel refuses it)
  MPI_Comm comm = MPI_COMM_NULL;  // whose error handler applies
  bool active = false;            // a persistent request's: started and not yet completed
  // Subtracted from the core's source rank for the status: an intercommunicator
  // receive's remote_offset, so MPI_SOURCE is a rank of the remote group.
  int source_offset = 0;

  // What only some requests need, kept apart so that the common one (a send or a
  // receive of a plain message) builds and destroys none of it: three std::functions, a
  // vector and three shared_ptrs were a tenth of a small MPI_Isend's instructions.
  struct Extras {
    // A non-blocking collective's last step, run once `request` completes (combining
    // gathered contributions, say), or a receive's unpacking, and the buffers it needs
    // until then.
    std::function<void()> finish;
    std::shared_ptr<void> keep_alive;
    // A persistent request (MPI_Send_init, MPI_Recv_init) starts its operation anew with
    // each MPI_Start (setting `request`, and `finish` where a receive unpacks); completing
    // it leaves it allocated and inactive.
    std::function<void(MPI_ABI_Request&)> restart;  // empty: not persistent
    // A generalized request's callbacks and state (grequests.h); null for any other.
    std::shared_ptr<weft::mpi::Grequest> generalized;
    // Further operations the request completes with, waited for before `request`
    // (MPI_Isendrecv's send, MPI_Buffer_iflush's buffered sends).
    std::vector<weft::Request> also;
    // Not done while this says so, whatever `request` says: a partitioned send whose
    // partitions are not all ready has sent nothing yet.
    std::function<bool()> held;
    // A partitioned request's (MPI_Psend_init, MPI_Precv_init) partitions; null otherwise.
    std::shared_ptr<weft::mpi::Partitioned> partitioned;
  };
  // To read: the extras, or empty ones when none were set.
  const Extras& extras() const { return extras_ ? *extras_ : kNoExtras; }
  // A plain operation's request: none of the extras set (not persistent, generalized,
  // partitioned, staged...) and not to or from MPI_PROC_NULL, so that completing it is
  // waiting for `request` alone.
  bool plain() const { return extras_ == nullptr && !proc_null; }
  // To set one: made the first time.
  Extras& more() {
    if (!extras_) extras_ = std::make_unique<Extras>();
    return *extras_;
  }

 private:
  static inline const Extras kNoExtras{};
  std::unique_ptr<Extras> extras_;
};

// A user error handler (MPI_Comm_create_errhandler); the predefined ones keep the
// standard's small constant handles.
struct MPI_ABI_Errhandler {
  static constexpr uint32_t kMagic = 0x57455248;  // "WERH"
  uint32_t magic = kMagic;
  MPI_Comm_errhandler_function* function = nullptr;
  // A window's or a file's handler (MPI_Win_create_errhandler, MPI_File_create_errhandler)
  // has its function here instead, and serves only its kind of object.
  MPI_Win_errhandler_function* win_function = nullptr;
  MPI_File_errhandler_function* file_function = nullptr;
  // A session's handler (MPI_Session_create_errhandler) instead of `function`.
  MPI_Session_errhandler_function* session_function = nullptr;
};

namespace weft::mpi {

struct LibraryState {
  bool initialized = false;
  bool finalized = false;
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  MPI_ABI_Comm world;
  MPI_ABI_Comm self;
  // Requests the program freed while they were still active: the operation goes on,
  // and the request is forgotten once it completes.
  std::vector<weft::Request> detached;
  // Sessions (MPI-4) start weft's runtime as MPI_Init does: whether it runs, and how
  // many sessions are open; the runtime ends with the last of MPI_Finalize and
  // MPI_Session_finalize.
  bool runtime_started = false;
  int sessions = 0;
};

// Joins the job and sets up MPI_COMM_WORLD and MPI_COMM_SELF, once (MPI_Init, and
// MPI_Session_init without it).
void start_runtime();
// Ends the runtime (every rank at once, as MPI_Finalize) unless MPI_Init's world or a
// session still uses it.
void stop_runtime_if_unused();

// Inline, as comm_or_null: both are asked on every message.
inline LibraryState& library() {
  static LibraryState* const state = new LibraryState();  // never destroyed: see abort_process
  return *state;
}

// Throws MpiError(MPI_ERR_OTHER) before MPI_Init or after MPI_Finalize.
void require_initialized(const char* function);

// The communicator behind a handle; MpiError(MPI_ERR_COMM) for MPI_COMM_NULL or garbage.
MPI_ABI_Comm& comm_of(MPI_Comm comm);
// The same, or nullptr where comm_of would throw: for fast paths that leave every error
// to the general path.
inline MPI_ABI_Comm* comm_or_null(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return &library().world;
  if (comm == MPI_COMM_SELF) return &library().self;
  auto address = reinterpret_cast<uintptr_t>(comm);
  // Predefined handles are small numbers; a real object lives far above them.
  if (address < 0x1000 || reinterpret_cast<MPI_ABI_Comm*>(comm)->magic != MPI_ABI_Comm::kMagic) {
    return nullptr;
  }
  return reinterpret_cast<MPI_ABI_Comm*>(comm);
}
// The same, for `function`, which also needs MPI to be initialised.
MPI_ABI_Comm& communicator(MPI_Comm comm, const char* function);
// The handle of a communicator object.
MPI_Comm handle_of(MPI_ABI_Comm* comm);
// A new communicator for `group`, made from `parent` (MPI_Comm_dup, _split, _create...),
// whose error handler it takes, as the standard says.
MPI_Comm make_comm(const weft::Group& group, const MPI_ABI_Comm& parent);

// The error handler that applies to a failure on `comm`: its own, or MPI_COMM_WORLD's
// when `comm` is not a valid communicator.
MPI_Errhandler errhandler_for(MPI_Comm comm);

// The user error handler behind a handle, or nullptr for a predefined one;
// MpiError(MPI_ERR_ERRHANDLER) for MPI_ERRHANDLER_NULL or garbage.
MPI_ABI_Errhandler* user_errhandler_or_null(MPI_Errhandler errhandler);

// This process's rank in MPI_COMM_WORLD, or -1 before MPI_Init.
int world_rank_or_unknown();

// The group behind a handle (MPI_GROUP_EMPTY's is an empty one); MpiError(MPI_ERR_GROUP)
// for MPI_GROUP_NULL or garbage. `what` names the argument in the message.
MPI_ABI_Group& group_of(MPI_Group group, const char* what = "group");

// The request behind a handle, or nullptr for MPI_REQUEST_NULL and garbage.
inline MPI_ABI_Request* request_or_null(MPI_Request request) {
  auto address = reinterpret_cast<uintptr_t>(request);
  if (request == MPI_REQUEST_NULL || address < 0x1000 ||
      reinterpret_cast<MPI_ABI_Request*>(request)->magic != MPI_ABI_Request::kMagic) {
    return nullptr;
  }
  return reinterpret_cast<MPI_ABI_Request*>(request);
}
// The same, with MpiError(MPI_ERR_REQUEST) for either. Inline: every wait and test looks
// each of its requests up several times.
[[noreturn]] void throw_invalid_request();
inline MPI_ABI_Request& request_of(MPI_Request request) {
  MPI_ABI_Request* r = request_or_null(request);
  if (r == nullptr) throw_invalid_request();
  return *r;
}

// Forgets detached requests that have completed. Inline for the common case, on every
// wait and test: none.
void reap_completed_detached();
inline void reap_detached() {
  if (!library().detached.empty()) [[unlikely]]
    reap_completed_detached();
}

}  // namespace weft::mpi

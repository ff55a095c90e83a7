// Joining a job through a Store: every rank publishes a record (how to reach it) and
// waits until all world_size ranks have, then reads them all.
//
// The join refuses, on every process involved, a rank claimed twice and a world size
// that differs from rank 0's; a process that knows the job cannot assemble posts the
// reason with abort_join() so the others stop at once instead of timing out. When the
// deadline passes it reports "x/y ranks joined; missing ranks: ...". A store that holds
// a job of this name that already assembled is another job's (its port was taken
// first): InvalidArgument saying so, and that job is left alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rendezvous/store.h"
#include "weft/error.h"

namespace weft::rendezvous {

struct JoinResult {
  std::vector<std::string> records;  // by rank
  uint64_t job_id = 0;               // drawn by rank 0; identifies this job's connections
};

// `self` describes this process in messages: "host:1234", then " at " and the addresses
// it advertised to its peers, so a timeout shows who joined from where. The leading
// "host:pid" is what refuse_leftover_job() checks for liveness.
JoinResult join_world(Store& store, int rank, int world_size, const std::string& record,
                      const std::string& self, base::Deadline deadline);

// For stores that outlive their jobs (FileStore): InvalidArgument, saying what was found
// and what to do, when the store already holds a job of this name that assembled or
// failed, or one a process on this host joined and has since died. Such a store is a
// leftover of a killed job, or a running job's; it is never joined.
void refuse_leftover_job(Store& store, const std::string& where, base::Deadline deadline);

// The next rank no process has claimed, for a process started without one. InvalidArgument
// when all world_size ranks are taken.
int assign_rank(Store& store, int world_size, const std::string& self, base::Deadline deadline);

// Tells every rank waiting in join_world that the job cannot assemble, and why. Best
// effort: errors reaching the store are ignored.
void abort_join(Store& store, const std::string& reason, base::Deadline deadline);

// What a rank gets when another process aborted the join: an InvalidArgument carrying
// that process's reason. It is second-hand, so whoever catches it must not post it again.
class JoinAborted : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// Throws the JoinAborted every waiting rank gets once some process has aborted the
// join; for steps after join_world that wait on peers (connecting to them).
void throw_if_aborted(Store& store, int rank, base::Deadline deadline);

// For the process hosting the store, failing: when the join was aborted, waits until
// `processes` processes (itself included) have posted or heard the abort, or until
// `deadline`, so that ranks still connecting learn why instead of finding no store and
// timing out. Every process that posts or hears an abort counts itself once.
void await_abort_heard(Store& store, int processes, base::Deadline deadline);

}  // namespace weft::rendezvous

// The supervision of the processes one weftrun starts: its ranks, or (from -H) one
// weftrun per host. run_units() starts them, relays their output line by line, forwards
// SIGINT, SIGTERM, SIGHUP and SIGQUIT to them (a second SIGINT kills them), and returns
// weftrun's exit status. Rank 0 reads weftrun's stdin unless it is a terminal (a rank in
// a process group of its own would be stopped reading one); the others read /dev/null.
//
// The first of these events decides how the job ends, and its exit status:
//  - a unit exits non-zero or is killed: the others get `grace` to exit by themselves,
//    then SIGTERM, then SIGKILL 3 s later; the status is that unit's (128+N for signal N).
//    A rank killed by a signal (not weftrun's) within 250 ms after a rank's non-zero
//    exit counts as the first failure instead: its peers' "lost connection" errors can
//    reach weftrun before its own death does.
//  - --timeout passes: SIGTERM at once, SIGKILL 3 s later; status 124
//  - weftrun receives a forwarded signal N: the units get `grace` after it, as above;
//    status 128+N
//  - another node of the job fails (JobRole::coordinator): `grace`, as above; the
//    status is that of the job's root cause (node_coordinator.h)
//  - the program cannot be executed: status 127
// With none of them, every unit exited 0 and so does weftrun.
//
// After a rank failure, weftrun also names a rank that stopped responding when the
// failed ranks had timed out waiting for it (tools/weftrun/silent_rank.h): "the job
// failed; its root cause: rank 2 (host:pid) stopped responding: ranks 0, 1 and 3 timed
// out waiting for it". The exit status stays the first failure's. In a job on several
// hosts every node names that rank, from the ranks' ends the nodes share through the
// store (node_coordinator.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/weftrun/job_signals.h"
#include "tools/weftrun/node_coordinator.h"
#include "tools/weftrun/options.h"
#include "tools/weftrun/rank_process.h"

namespace weft::weftrun {

// One process weftrun starts and supervises: a rank, or (from -H) another host's weftrun.
struct LaunchUnit {
  int index = 0;       // its rank (or node) number, for messages
  std::string prefix;  // put in front of each of its output lines
  RankSpawnRequest request;
  std::vector<int> cpus;  // bind it to these; empty: leave it unbound
  std::string binding;    // what `cpus` are, for the log
};

// How this weftrun fits into the job.
struct JobRole {
  std::string unit = "rank";
  int node = 0;
  // Set in a job on several hosts: how this node learns of the others' failures.
  NodeCoordinator* coordinator = nullptr;
  std::string store;  // "A:Q", where node 0's store is
  // The rank that rank `index` reported timing out waiting for, if it did
  // (rendezvous/launcher_reports.h); unset where the reports cannot be read.
  std::function<std::optional<int>(int index)> waited_for;
  int world_size = 0;  // the job's ranks on every node, with a coordinator
};

int run_units(const Options& options, JobSignals& signals, std::vector<LaunchUnit> units,
              JobRole role);

// Writes one line to weftrun's stderr, waiting rather than dropping it.
void report(const std::string& line);

}  // namespace weft::weftrun

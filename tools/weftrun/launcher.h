// run_job: runs one weftrun job on this host from start to end and returns weftrun's
// exit status.
//
// It hosts the rendezvous store on 127.0.0.1 (any free port) for as long as any rank
// runs, starts the ranks (see rank_environment.h for what each one is told), relays
// their output line by line, and forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to them (a
// second SIGINT kills them). Rank 0 reads weftrun's stdin unless it is a terminal (a
// rank in a process group of its own would be stopped reading one); the others read
// /dev/null.
//
// The first of these events decides how the job ends, and its exit status:
//  - a rank exits non-zero or is killed: the others get `grace` to exit by themselves,
//    then SIGTERM, then SIGKILL 3 s later; the status is that rank's (128+N for signal N).
//    A rank killed by a signal (not weftrun's) within 250 ms after a rank's non-zero
//    exit counts as the first failure instead: its peers' "lost connection" errors can
//    reach weftrun before its own death does.
//  - --timeout passes: SIGTERM at once, SIGKILL 3 s later; status 124
//  - weftrun receives a forwarded signal N: the ranks get `grace` after it, as above;
//    status 128+N
//  - the program cannot be executed: status 127
// With none of them, every rank exited 0 and so does weftrun.
#pragma once

#include "tools/weftrun/options.h"

namespace weft::weftrun {

int run_job(const Options& options);

}  // namespace weft::weftrun

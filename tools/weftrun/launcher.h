// run_job: runs one weftrun job (or this host's share of one) from start to end and
// returns weftrun's exit status.
//
// On one host it hosts the rendezvous store on 127.0.0.1 (any free port) for as long as
// any rank runs and starts the ranks (see rank_environment.h for what each one is told).
// In a job on several hosts (--nnodes, or -H/--hostfile with --node-rank) node 0 hosts
// the store at --master-addr:--master-port and every node's weftrun coordinates the end
// of the job through it (node_coordinator.h). With -H/--hostfile alone it starts one
// weftrun per host through the launch agent (host_agents.h). How the ranks are
// supervised, and which exit status wins, is in job.h.
#pragma once

#include "tools/weftrun/options.h"

namespace weft::weftrun {

int run_job(const Options& options);

}  // namespace weft::weftrun

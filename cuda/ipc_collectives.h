// Collectives between processes of one host that move device memory directly: each
// rank exports its buffers through CUDA IPC, maps its peers', and does its share of
// the work reading and writing their memory, with no copy through the host.
//
// Where the ranks' buffers are on different devices, each does its share:
//
//   all_reduce      rank r reduces the r-th of n slices from every rank's input and
//                   writes the result into that slice of every rank's output
//   reduce          the same, writing only into the root's output
//   reduce_scatter  rank r reduces its own block from every rank's input
//   broadcast       every rank copies the root's buffer into its own
//   all_gather      rank r copies its input into its block of every rank's output
//
// So every element is read and written once per rank, the least any all_reduce can
// do, and each result is computed once (every rank ends with the same bits).
//
// Where they are all on one device (several processes sharing a GPU), one rank (the
// root, else rank 0) does the whole call in the others' memory, with the same kernels
// over all the buffers: a device runs one process's kernels at a time, so shares done
// by several processes would only take turns, each switch between processes costing
// a few hundred microseconds (measured on an H200, docs/CUDA.md). The steps
// over the host are one all_gather of the ranks' export records, which is also where
// every rank's inputs are known to be ready, and a barrier at the end, after which no
// rank touches another's memory.
#pragma once

#include "cuda/device_workspace.h"
#include "runtime/device_interface.h"

namespace weft::cuda {

// Whether this path can serve collectives of `kind` at all (the others are staged).
bool ipc_serves(const runtime::DeviceCall& call);

// Exchanges the export records and, when every rank can take part, runs the call and
// returns true. Returns false, having moved no data, when some rank cannot (it is on
// another host, its memory cannot be exported, WEFT_CUDA_IPC=0 there): every rank
// decides alike from the same records, and the caller stages the call instead.
bool run_over_ipc(const runtime::DeviceCall& call, const runtime::HostStep& host,
                  DeviceWorkspace& workspace);

}  // namespace weft::cuda

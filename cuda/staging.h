// The staging paths: a device collective run as host collectives over page-locked
// host copies of its device buffers, for groups that CUDA IPC cannot serve (members on
// other hosts, memory that cannot be exported, WEFT_CUDA_IPC=0).
#pragma once

#include "cuda/device_workspace.h"
#include "runtime/device_interface.h"

namespace weft::cuda {

// Any collective: its device buffers are copied to host memory (an input and output
// that overlap, as in-place forms do, as one range), the host collective runs on the
// copies, and the range holding the output is copied back. Outputs are copied in as
// well, so the parts of them that the collective does not write stay as they were.
void run_staged(const runtime::DeviceCall& call, const runtime::HostStep& host,
                DeviceWorkspace& workspace);

// broadcast, all_reduce and reduce, whose elements are independent, in chunks of
// `chunk_bytes` through two host buffers: while the host collective runs on one, the
// device stream copies the previous chunk's result out of the other and the next
// chunk into it. Every rank splits the vector alike, so each chunk is one host
// collective on every rank.
void run_pipelined(const runtime::DeviceCall& call, const runtime::HostStep& host,
                   DeviceWorkspace& workspace, uint64_t chunk_bytes);

// The chunk size of run_pipelined: WEFT_CUDA_STAGING_CHUNK (4M).
uint64_t staging_chunk_bytes();

}  // namespace weft::cuda

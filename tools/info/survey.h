// What weft-info reports, one function per section. Each reads the machine as weft
// would use it and says why when something cannot be used, instead of leaving it out.
#pragma once

#include "tools/info/info_tree.h"

namespace weft::info {

// weft's version and how this build was made: CUDA on or off, the reduction kernels'
// instruction set on this CPU, sanitizers, optimisation, compiler.
InfoNode survey_build();

// The host as hwloc sees it: packages, cores, hardware threads, NUMA nodes with their
// memory, GPUs and network interfaces with the NUMA node they hang off.
InfoNode survey_topology();

// The transports weft can use here: shared memory (/dev/shm and its free space; whether
// single-copy reads between processes are allowed), TCP (interfaces and addresses),
// verbs devices (survey_verbs), CUDA devices and peer access.
InfoNode survey_transports();

// InfiniBand and RoCE verbs: libibverbs loaded or why not, WEFT_IB_HCA's selection, each
// device with its NUMA node and ports (state, link layer, LID, GIDs, the GID weft would
// use, whether weft could use the port and why not), and why none is usable, or else
// the port the first rank on this host would take, bound as this process is.
InfoNode survey_verbs();

// The environment variables weft and the launchers it recognises read, as set now.
// Secrets are shown as set, never their value.
InfoNode survey_environment();

}  // namespace weft::info

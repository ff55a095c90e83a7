// Cross-memory attach: copying straight from another process's memory with
// process_vm_readv, the single copy behind large shared-memory messages. Linux allows it
// only where the caller could ptrace the peer (same user and not undumpable, or
// CAP_SYS_PTRACE; Yama and seccomp profiles in containers often forbid it), so it is
// probed against the real peer before it is relied on.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/failure.h"

namespace weft::transport::shm {

// Copies `bytes` from `remote` in process `pid` to `local`; the failure says what went
// wrong ("Operation not permitted").
base::Failure cma_read(pid_t pid, void* local, uint64_t remote, size_t bytes);

// Whether this process may read `pid`'s memory: reads 8 bytes at `address`, which must
// hold `expected`; the failure says why it may not.
base::Failure cma_probe(pid_t pid, uint64_t address, uint64_t expected);

}  // namespace weft::transport::shm

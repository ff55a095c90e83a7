// HostIdentity: which machine, and which network namespace on it, a process runs in.
// Two processes with equal identities reach each other over loopback; processes on
// different machines (or in different network namespaces, as in the multi-"host" tests)
// must use a routable address.
#pragma once

#include <cstdint>
#include <string>

namespace weft::base {

struct HostIdentity {
  std::string hostname;
  std::string boot_id;         // /proc/sys/kernel/random/boot_id: distinct per machine boot
  uint64_t net_namespace = 0;  // inode of /proc/self/ns/net
  // What decides whether two processes can share memory: the same IPC namespace, the
  // same PID namespace (so a pid names the same process for process_vm_readv), and the
  // same tmpfs behind /dev/shm (containers mount their own).
  uint64_t ipc_namespace = 0;  // inode of /proc/self/ns/ipc
  uint64_t pid_namespace = 0;  // inode of /proc/self/ns/pid
  uint64_t shm_device = 0;     // st_dev of /dev/shm; 0 when it does not exist

  bool shares_network_with(const HostIdentity& other) const {
    return boot_id == other.boot_id && net_namespace == other.net_namespace;
  }
  bool shares_memory_with(const HostIdentity& other) const {
    return boot_id == other.boot_id && ipc_namespace == other.ipc_namespace &&
           pid_namespace == other.pid_namespace && shm_device != 0 &&
           shm_device == other.shm_device;
  }
};

const HostIdentity& local_host_identity();

// A number equal for two processes exactly when they share memory (shares_memory_with),
// for comparing after an all-gather: a 64-bit hash of what decides it (distinct ones
// collide with negligible probability). A process with no /dev/shm shares with nobody:
// its number includes its pid.
uint64_t local_memory_domain();

}  // namespace weft::base

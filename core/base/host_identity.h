// HostIdentity: which machine, and which network namespace on it, a process runs in.
// Two processes with equal identities reach each other over loopback; processes on
// different machines (or in different network namespaces, as in the multi-"host" tests)
// must use a routable address.
#pragma once

#include <cstdint>
#include <string>

namespace weft {

struct HostIdentity {
  std::string hostname;
  std::string boot_id;         // /proc/sys/kernel/random/boot_id: distinct per machine boot
  uint64_t net_namespace = 0;  // inode of /proc/self/ns/net

  bool shares_network_with(const HostIdentity& other) const {
    return boot_id == other.boot_id && net_namespace == other.net_namespace;
  }
};

const HostIdentity& local_host_identity();

}  // namespace weft

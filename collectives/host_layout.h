// HostLayout: which host each rank of a group runs on, for the hierarchical algorithms
// (collectives/algorithms/hierarchical.cc). Learnt once, when the group is made, from
// the host identities every rank published at init; a call reads it and sends nothing.
// Hosts are numbered in the order of their lowest group rank, and each host's members
// are listed in group-rank order, so every rank derives the same layout.
#pragma once

#include <cstdint>
#include <vector>

namespace weft::collectives {

struct HostLayout {
  std::vector<int> host_of;               // by group rank
  std::vector<int> local_index;           // by group rank: its place among its host's members
  std::vector<std::vector<int>> members;  // by host: its group ranks, ascending
  bool uniform = false;                   // every host has the same number of ranks
  uint64_t fingerprint = 0;               // of host_of: for hashing specs

  int hosts() const { return static_cast<int>(members.size()); }
  // The group ranks with local index `index`, one per host that has one, in host order.
  std::vector<int> with_local_index(int index) const;
};

// The layout of a group whose rank r runs on host key `host_key[r]` (equal keys: the
// same host). Null when there is nothing to be hierarchical about: one host, or one rank
// on every host. Layouts are interned for the life of the process: equal layouts are
// one object, which the caches that keep specs may compare by address without ever
// holding a pointer to a layout that is gone.
const HostLayout* host_layout(const std::vector<uint64_t>& host_key);

}  // namespace weft::collectives

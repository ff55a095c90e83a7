// The call stamp: what one rank's collective call is (collective, op, dtype, root and,
// where every rank passes the same, the count), packed into 64 bits that travel in the
// header of each of the call's messages. A receive of a collective compares the stamp
// of what arrives with its own call's, so ranks that disagree about a collective get a
// DesyncError naming both calls instead of a wrong answer or a hang (p2p::Engine's
// desync handling; docs/ARCHITECTURE.md, "Failures").
#pragma once

#include <cstdint>
#include <string>

#include "collectives/collective_spec.h"

namespace weft::collectives {

// Never 0, which marks a point-to-point message. Ranks that agree about the call get
// equal stamps: a rooted reduce leaves its op out (its root alone decides it, as in
// MPI implementations), and the count is in only for the collectives where every rank
// passes the same one (broadcast, all_reduce, reduce), saturating at 2^32 - 1.
uint64_t call_stamp(const CollectiveSpec& spec);

// "all_reduce (op max, float32, 1024 elements)", "broadcast (root: group rank 1,
// int32, 16 elements)", for any stamp call_stamp made.
std::string describe_call_stamp(uint64_t stamp);

}  // namespace weft::collectives

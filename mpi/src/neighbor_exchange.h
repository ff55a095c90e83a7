// The neighbourhood collectives' one operation: each rank sends a block to each of its
// topology's destinations and receives one from each of its sources. It runs as one
// all-to-all of the core over the communicator, whose block for each rank is every block
// exchanged with it, packed one after another (a rank may be a neighbour more than once),
// so it has the core's ordering of collectives and never meets a point-to-point message.
#pragma once

#include <mpi.h>
#include <weft/weft.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mpi/src/derived_types.h"
#include "mpi/src/objects.h"
#include "mpi/src/topology.h"

namespace weft::mpi {

// One neighbour's block: `count` elements of a datatype at `address` (an address, not a
// pointer: displacements from MPI_BOTTOM reach anywhere).
struct NeighborBlock {
  uintptr_t address = 0;
  uint64_t count = 0;
  std::shared_ptr<const Typemap> typemap;
  uint64_t bytes() const { return count * typemap->size; }
};

// One side's blocks, the k-th for the k-th neighbour.
using BlockAt = std::function<NeighborBlock(size_t k)>;

class NeighborExchange {
 public:
  // Checks both sides (each block is asked for once) for `comm`'s topology.
  NeighborExchange(const MPI_ABI_Comm& comm, const Topology& topology, const BlockAt& send,
                   const BlockAt& receive);

  // Packs what is to be sent and starts the exchange: the core's request when `async`,
  // an empty one once done otherwise. finish() then moves what arrived into place.
  weft::Request start(bool async);
  void finish() const;

 private:
  weft::Group group_;
  std::vector<NeighborBlock> sends_, receives_;         // in the core's order: by rank, then label
  std::vector<uint64_t> send_counts_, receive_counts_;  // bytes, per rank of the group
  std::vector<std::byte> send_bytes_, receive_bytes_;
};

}  // namespace weft::mpi

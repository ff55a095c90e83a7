// Process topologies: what MPI_Cart_create, MPI_Graph_create and the MPI_Dist_graph_create
// functions attach to the communicator they make, and what the neighbourhood collectives
// read from it. Ranks are never reordered: rank r of the new communicator is rank r of the
// old one, which the standard allows (reorder is a hint).
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "mpi/src/objects.h"

namespace weft::mpi {

struct Topology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

  // MPI_CART: the grid, row-major (the last dimension varies fastest).
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension

  // MPI_GRAPH: the whole graph as given (index[i] is the end of node i's edges).
  std::vector<int> index;
  std::vector<int> edges;

  // MPI_DIST_GRAPH: this rank's own edges.
  bool weighted = false;
  std::vector<int> source_weights;
  std::vector<int> destination_weights;

  // Every kind: this rank's neighbours in the order of the neighbourhood collectives'
  // blocks (MPI_PROC_NULL where a Cartesian edge leaves the grid: its block is kept but
  // nothing moves), sources receiving and destinations sending.
  std::vector<int> sources;
  std::vector<int> destinations;
  // Which receive block a send fills when two ranks are neighbours more than once (a
  // periodic dimension of size 1 or 2, a graph with repeated edges): between a pair of
  // ranks, the sends sorted by label (then by position) meet the receives sorted by label
  // (then by position). A Cartesian send towards the +1 neighbour arrives there from its
  // -1 neighbour, so the labels say the direction the data travels; graph edges all have
  // label 0 and meet in order, as point-to-point messages would.
  std::vector<int> source_labels;
  std::vector<int> destination_labels;
};

// The Cartesian topology: neighbours and labels filled in for `rank`.
std::shared_ptr<const Topology> cartesian(std::vector<int> dims, std::vector<int> periods,
                                          int rank);
// A rank's coordinates in a Cartesian topology, and the rank at coordinates (wrapped in
// periodic dimensions; MPI_ERR_RANK outside a non-periodic one).
std::vector<int> cart_coords(const Topology& topology, int rank);
int cart_rank(const Topology& topology, const int coords[]);
// The rank `disp` steps along `direction` from `coords`, or MPI_PROC_NULL off the grid.
int cart_neighbor(const Topology& topology, std::vector<int> coords, int direction, int disp);

// A new communicator of the first `members` ranks of `parent`, in the same order, for a
// topology to be attached to; MPI_COMM_NULL on the ranks beyond. Collective over `parent`.
MPI_Comm topology_comm(const MPI_ABI_Comm& parent, int members);

// The topology of `comm`, which must be of `kind` (MPI_ERR_TOPOLOGY otherwise). Any kind
// when `kind` is MPI_UNDEFINED, but it must have one.
const Topology& topology_of(const MPI_ABI_Comm& comm, int kind);

}  // namespace weft::mpi

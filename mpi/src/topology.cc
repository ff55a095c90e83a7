#include "mpi/src/topology.h"

#include <string>

#include "mpi/src/errors.h"

namespace weft::mpi {

std::shared_ptr<const Topology> cartesian(std::vector<int> dims, std::vector<int> periods,
                                          int rank) {
  auto t = std::make_shared<Topology>();
  t->kind = MPI_CART;
  t->dims = std::move(dims);
  t->periods = std::move(periods);
  std::vector<int> coords = cart_coords(*t, rank);
  for (int d = 0; d < static_cast<int>(t->dims.size()); ++d) {
    // The standard's order: per dimension, the -1 neighbour, then the +1 one, both as
    // source and as destination.
    for (int step : {-1, 1}) {
      int neighbor = cart_neighbor(*t, coords, d, step);
      t->sources.push_back(neighbor);
      t->destinations.push_back(neighbor);
      // A send towards `step` travels in direction `step`; what arrives from the `step`
      // neighbour travels in direction -step.
      t->destination_labels.push_back(2 * d + (step > 0 ? 1 : 0));
      t->source_labels.push_back(2 * d + (step > 0 ? 0 : 1));
    }
  }
  return t;
}

std::vector<int> cart_coords(const Topology& topology, int rank) {
  std::vector<int> coords(topology.dims.size());
  for (size_t d = topology.dims.size(); d-- > 0;) {
    coords[d] = rank % topology.dims[d];
    rank /= topology.dims[d];
  }
  return coords;
}

int cart_rank(const Topology& topology, const int coords[]) {
  int rank = 0;
  for (size_t d = 0; d < topology.dims.size(); ++d) {
    int extent = topology.dims[d], c = coords[d];
    if (c < 0 || c >= extent) {
      if (!topology.periods[d]) {
        throw MpiError(MPI_ERR_RANK, "coords[" + std::to_string(d) + "] = " + std::to_string(c) +
                                         " lies outside the non-periodic dimension of size " +
                                         std::to_string(extent));
      }
      c = (c % extent + extent) % extent;
    }
    rank = rank * extent + c;
  }
  return rank;
}

int cart_neighbor(const Topology& topology, std::vector<int> coords, int direction, int disp) {
  int extent = topology.dims[static_cast<size_t>(direction)];
  int64_t c = int64_t{coords[static_cast<size_t>(direction)]} + disp;
  if (c < 0 || c >= extent) {
    if (!topology.periods[static_cast<size_t>(direction)]) return MPI_PROC_NULL;
    c = (c % extent + extent) % extent;
  }
  coords[static_cast<size_t>(direction)] = static_cast<int>(c);
  return cart_rank(topology, coords.data());
}

MPI_Comm topology_comm(const MPI_ABI_Comm& parent, int members) {
  int rank = parent.group.rank();
  std::optional<weft::Group> group = weft::split_group(parent.group, rank < members ? 0 : -1, rank);
  return group ? make_comm(*group, parent) : MPI_COMM_NULL;
}

const Topology& topology_of(const MPI_ABI_Comm& comm, int kind) {
  const Topology* t = comm.topology.get();
  auto name = [](int k) {
    return k == MPI_CART ? "a Cartesian" : k == MPI_GRAPH ? "a graph" : "a distributed graph";
  };
  if (t == nullptr) {
    throw MpiError(MPI_ERR_TOPOLOGY, kind == MPI_UNDEFINED
                                         ? "the communicator has no topology"
                                         : std::string("the communicator is not ") + name(kind) +
                                               " communicator (it has no topology)");
  }
  if (kind != MPI_UNDEFINED && t->kind != kind) {
    throw MpiError(MPI_ERR_TOPOLOGY, std::string("the communicator is not ") + name(kind) +
                                         " communicator but " + name(t->kind) + " one");
  }
  return *t;
}

}  // namespace weft::mpi

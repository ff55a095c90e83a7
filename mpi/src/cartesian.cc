// Cartesian topologies (MPI_Cart_*) and MPI_Topo_test. Rank r of the grid is rank r of
// the old communicator; the ranks beyond the grid get MPI_COMM_NULL.
#include <cstdint>
#include <string>
#include <vector>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"
#include "mpi/src/topology.h"

using weft::mpi::communicator;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;
using weft::mpi::Topology;
using weft::mpi::topology_of;

namespace {

// The ranks a grid takes: MPI_ERR_DIMS for a negative ndims or a dimension below 1,
// MPI_ERR_TOPOLOGY when the grid is larger than the communicator.
int grid_size(int ndims, const int dims[], const MPI_ABI_Comm& c) {
  if (ndims < 0) throw MpiError(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
  if (ndims > 0) require_pointer(dims, "dims");
  int64_t product = 1;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] <= 0) {
      throw MpiError(MPI_ERR_DIMS, "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) +
                                       " is not positive");
    }
    product *= dims[d];
    if (product > c.group.size()) {
      throw MpiError(MPI_ERR_TOPOLOGY, "the grid has more than the communicator's " +
                                           std::to_string(c.group.size()) + " rank(s)");
    }
  }
  return static_cast<int>(product);
}

std::vector<int> periods_of(int ndims, const int periods[]) {
  if (ndims > 0) require_pointer(periods, "periods");
  std::vector<int> result(static_cast<size_t>(ndims));
  for (int d = 0; d < ndims; ++d) result[static_cast<size_t>(d)] = periods[d] ? 1 : 0;
  return result;
}

const Topology& cart_of(MPI_Comm comm, const char* function) {
  return topology_of(communicator(comm, function), MPI_CART);
}

}  // namespace

extern "C" {

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm* comm_cart) {
  (void)reorder;  // a hint: ranks keep their order
  return mpi_call("MPI_Cart_create", comm_old, [&] {
    const MPI_ABI_Comm& parent = communicator(comm_old, "MPI_Cart_create");
    require_pointer(comm_cart, "comm_cart");
    int members = grid_size(ndims, dims, parent);
    std::vector<int> flags = periods_of(ndims, periods);
    MPI_Comm made = weft::mpi::topology_comm(parent, members);
    if (made != MPI_COMM_NULL) {
      weft::mpi::comm_of(made).topology =
          weft::mpi::cartesian(std::vector<int>(dims, dims + ndims), flags, parent.group.rank());
    }
    *comm_cart = made;
  });
}
WEFT_MPI_ALIAS(Cart_create)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  return mpi_call("MPI_Cart_map", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Cart_map");
    require_pointer(newrank, "newrank");
    int members = grid_size(ndims, dims, c);
    periods_of(ndims, periods);
    int rank = c.group.rank();
    *newrank = rank < members ? rank : MPI_UNDEFINED;
  });
}
WEFT_MPI_ALIAS(Cart_map)

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return mpi_call("MPI_Cartdim_get", comm, [&] {
    const Topology& t = cart_of(comm, "MPI_Cartdim_get");
    require_pointer(ndims, "ndims");
    *ndims = static_cast<int>(t.dims.size());
  });
}
WEFT_MPI_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  return mpi_call("MPI_Cart_get", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Cart_get");
    const Topology& t = topology_of(c, MPI_CART);
    if (maxdims < 0) {
      throw MpiError(MPI_ERR_ARG, "maxdims " + std::to_string(maxdims) + " is negative");
    }
    std::vector<int> mine = weft::mpi::cart_coords(t, c.group.rank());
    size_t n = std::min(t.dims.size(), static_cast<size_t>(maxdims));
    if (n > 0) {
      require_pointer(dims, "dims");
      require_pointer(periods, "periods");
      require_pointer(coords, "coords");
    }
    for (size_t d = 0; d < n; ++d) {
      dims[d] = t.dims[d];
      periods[d] = t.periods[d];
      coords[d] = mine[d];
    }
  });
}
WEFT_MPI_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  return mpi_call("MPI_Cart_rank", comm, [&] {
    const Topology& t = cart_of(comm, "MPI_Cart_rank");
    require_pointer(rank, "rank");
    if (!t.dims.empty()) require_pointer(coords, "coords");
    *rank = weft::mpi::cart_rank(t, coords);
  });
}
WEFT_MPI_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  return mpi_call("MPI_Cart_coords", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Cart_coords");
    const Topology& t = topology_of(c, MPI_CART);
    if (rank < 0 || rank >= c.group.size()) {
      throw MpiError(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in 0.." +
                                       std::to_string(c.group.size() - 1));
    }
    if (maxdims < static_cast<int>(t.dims.size())) {
      throw MpiError(MPI_ERR_ARG, "maxdims " + std::to_string(maxdims) + " is below the " +
                                      std::to_string(t.dims.size()) + " dimensions");
    }
    std::vector<int> found = weft::mpi::cart_coords(t, rank);
    if (!found.empty()) require_pointer(coords, "coords");
    for (size_t d = 0; d < found.size(); ++d) coords[d] = found[d];
  });
}
WEFT_MPI_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  return mpi_call("MPI_Cart_shift", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Cart_shift");
    const Topology& t = topology_of(c, MPI_CART);
    require_pointer(rank_source, "rank_source");
    require_pointer(rank_dest, "rank_dest");
    if (direction < 0 || direction >= static_cast<int>(t.dims.size())) {
      throw MpiError(MPI_ERR_ARG, "direction " + std::to_string(direction) + " is not in 0.." +
                                      std::to_string(static_cast<int>(t.dims.size()) - 1));
    }
    std::vector<int> mine = weft::mpi::cart_coords(t, c.group.rank());
    *rank_source = weft::mpi::cart_neighbor(t, mine, direction, -disp);
    *rank_dest = weft::mpi::cart_neighbor(t, mine, direction, disp);
  });
}
WEFT_MPI_ALIAS(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return mpi_call("MPI_Cart_sub", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Cart_sub");
    const Topology& t = topology_of(c, MPI_CART);
    require_pointer(newcomm, "newcomm");
    if (!t.dims.empty()) require_pointer(remain_dims, "remain_dims");
    // The ranks that agree on the dropped coordinates form one subgrid; their order in
    // it is their order here, which is the subgrid's row-major order.
    std::vector<int> mine = weft::mpi::cart_coords(t, c.group.rank());
    std::vector<int> dims, periods;
    int color = 0;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      if (remain_dims[d]) {
        dims.push_back(t.dims[d]);
        periods.push_back(t.periods[d]);
      } else {
        color = color * t.dims[d] + mine[d];
      }
    }
    std::optional<weft::Group> group = weft::split_group(c.group, color, c.group.rank());
    *newcomm = weft::mpi::make_comm(*group, c);
    weft::mpi::comm_of(*newcomm).topology =
        weft::mpi::cartesian(std::move(dims), std::move(periods), group->rank());
  });
}
WEFT_MPI_ALIAS(Cart_sub)

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  return mpi_call("MPI_Topo_test", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Topo_test");
    require_pointer(status, "status");
    *status = c.topology ? c.topology->kind : MPI_UNDEFINED;
  });
}
WEFT_MPI_ALIAS(Topo_test)

}  // extern "C"

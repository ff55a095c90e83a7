// Graph topologies (MPI_Graph_*), where every rank gives the whole graph, and distributed
// graph topologies (MPI_Dist_graph_*), where each rank gives some edges and learns its
// own. Rank r of the new communicator is rank r of the old one.
#include <algorithm>
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

// The checked graph: MPI_ERR_ARG for a negative nnodes, a decreasing index or an edge
// to no node, MPI_ERR_TOPOLOGY for more nodes than the communicator has ranks.
std::shared_ptr<Topology> graph_of(int nnodes, const int index[], const int edges[],
                                   const MPI_ABI_Comm& c) {
  if (nnodes < 0) throw MpiError(MPI_ERR_ARG, "nnodes " + std::to_string(nnodes) + " is negative");
  if (nnodes > c.group.size()) {
    throw MpiError(MPI_ERR_TOPOLOGY, "nnodes " + std::to_string(nnodes) + " exceeds the " +
                                         std::to_string(c.group.size()) +
                                         " rank(s) of the communicator");
  }
  auto t = std::make_shared<Topology>();
  t->kind = MPI_GRAPH;
  if (nnodes == 0) return t;
  require_pointer(index, "index");
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous) {
      throw MpiError(MPI_ERR_ARG, "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
                                      " is below the entry before it");
    }
    previous = index[i];
  }
  if (previous > 0) require_pointer(edges, "edges");
  for (int e = 0; e < previous; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      throw MpiError(MPI_ERR_ARG, "edges[" + std::to_string(e) + "] = " + std::to_string(edges[e]) +
                                      " is not a node (0.." + std::to_string(nnodes - 1) + ")");
    }
  }
  t->index.assign(index, index + nnodes);
  t->edges.assign(edges, edges + previous);
  return t;
}

// Node `rank`'s neighbours in a graph topology.
std::vector<int> graph_neighbors(const Topology& t, int rank) {
  if (rank < 0 || rank >= static_cast<int>(t.index.size())) {
    throw MpiError(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not a node of the graph");
  }
  int begin = rank == 0 ? 0 : t.index[static_cast<size_t>(rank - 1)];
  int end = t.index[static_cast<size_t>(rank)];
  return std::vector<int>(t.edges.begin() + begin, t.edges.begin() + end);
}

// Checks a list of `count` ranks of `c` (MPI_ERR_RANK), named `what`.
void check_ranks(const int ranks[], int count, const MPI_ABI_Comm& c, const char* what) {
  if (count > 0) require_pointer(ranks, what);
  for (int i = 0; i < count; ++i) {
    if (ranks[i] < 0 || ranks[i] >= c.group.size()) {
      throw MpiError(MPI_ERR_RANK, std::string(what) + "[" + std::to_string(i) +
                                       "] = " + std::to_string(ranks[i]) + " is not a rank");
    }
  }
}

bool is_weighted(const int weights[]) { return weights != MPI_UNWEIGHTED; }

// `count` weights, checked (MPI_ERR_ARG when negative); none for MPI_UNWEIGHTED or
// MPI_WEIGHTS_EMPTY.
std::vector<int> weights_of(const int weights[], int count, const char* what) {
  if (!is_weighted(weights) || weights == MPI_WEIGHTS_EMPTY || count == 0) return {};
  require_pointer(weights, what);
  for (int i = 0; i < count; ++i) {
    if (weights[i] < 0) {
      throw MpiError(MPI_ERR_ARG, std::string(what) + "[" + std::to_string(i) +
                                      "] = " + std::to_string(weights[i]) + " is negative");
    }
  }
  return std::vector<int>(weights, weights + count);
}

// A distributed graph's neighbours all meet in order.
void label_in_order(Topology& t) {
  t.source_labels.assign(t.sources.size(), 0);
  t.destination_labels.assign(t.destinations.size(), 0);
}

}  // namespace

extern "C" {

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                      int reorder, MPI_Comm* comm_graph) {
  (void)reorder;  // a hint: ranks keep their order
  return mpi_call("MPI_Graph_create", comm_old, [&] {
    const MPI_ABI_Comm& parent = communicator(comm_old, "MPI_Graph_create");
    require_pointer(comm_graph, "comm_graph");
    std::shared_ptr<Topology> t = graph_of(nnodes, indx, edges, parent);
    MPI_Comm made = weft::mpi::topology_comm(parent, nnodes);
    if (made != MPI_COMM_NULL) {
      t->sources = graph_neighbors(*t, parent.group.rank());
      t->destinations = t->sources;
      label_in_order(*t);
      weft::mpi::comm_of(made).topology = t;
    }
    *comm_graph = made;
  });
}
WEFT_MPI_ALIAS(Graph_create)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int* newrank) {
  return mpi_call("MPI_Graph_map", comm, [&] {
    const MPI_ABI_Comm& c = communicator(comm, "MPI_Graph_map");
    require_pointer(newrank, "newrank");
    graph_of(nnodes, indx, edges, c);
    *newrank = c.group.rank() < nnodes ? c.group.rank() : MPI_UNDEFINED;
  });
}
WEFT_MPI_ALIAS(Graph_map)

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  return mpi_call("MPI_Graphdims_get", comm, [&] {
    const Topology& t = topology_of(communicator(comm, "MPI_Graphdims_get"), MPI_GRAPH);
    require_pointer(nnodes, "nnodes");
    require_pointer(nedges, "nedges");
    *nnodes = static_cast<int>(t.index.size());
    *nedges = static_cast<int>(t.edges.size());
  });
}
WEFT_MPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  return mpi_call("MPI_Graph_get", comm, [&] {
    const Topology& t = topology_of(communicator(comm, "MPI_Graph_get"), MPI_GRAPH);
    if (maxindex < 0 || maxedges < 0) {
      throw MpiError(MPI_ERR_ARG, "maxindex and maxedges must not be negative");
    }
    size_t nodes = std::min(t.index.size(), static_cast<size_t>(maxindex));
    size_t links = std::min(t.edges.size(), static_cast<size_t>(maxedges));
    if (nodes > 0) require_pointer(indx, "index");
    if (links > 0) require_pointer(edges, "edges");
    std::copy_n(t.index.begin(), nodes, indx);
    std::copy_n(t.edges.begin(), links, edges);
  });
}
WEFT_MPI_ALIAS(Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  return mpi_call("MPI_Graph_neighbors_count", comm, [&] {
    const Topology& t = topology_of(communicator(comm, "MPI_Graph_neighbors_count"), MPI_GRAPH);
    require_pointer(nneighbors, "nneighbors");
    *nneighbors = static_cast<int>(graph_neighbors(t, rank).size());
  });
}
WEFT_MPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  return mpi_call("MPI_Graph_neighbors", comm, [&] {
    const Topology& t = topology_of(communicator(comm, "MPI_Graph_neighbors"), MPI_GRAPH);
    std::vector<int> found = graph_neighbors(t, rank);
    if (maxneighbors < 0) {
      throw MpiError(MPI_ERR_ARG, "maxneighbors " + std::to_string(maxneighbors) + " is negative");
    }
    size_t n = std::min(found.size(), static_cast<size_t>(maxneighbors));
    if (n > 0) require_pointer(neighbors, "neighbors");
    std::copy_n(found.begin(), n, neighbors);
  });
}
WEFT_MPI_ALIAS(Graph_neighbors)

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  (void)info;     // no hints are used
  (void)reorder;  // a hint: ranks keep their order
  return mpi_call("MPI_Dist_graph_create_adjacent", comm_old, [&] {
    const MPI_ABI_Comm& parent = communicator(comm_old, "MPI_Dist_graph_create_adjacent");
    require_pointer(comm_dist_graph, "comm_dist_graph");
    if (indegree < 0 || outdegree < 0) {
      throw MpiError(MPI_ERR_ARG, "indegree and outdegree must not be negative");
    }
    check_ranks(sources, indegree, parent, "sources");
    check_ranks(destinations, outdegree, parent, "destinations");
    auto t = std::make_shared<Topology>();
    t->kind = MPI_DIST_GRAPH;
    t->weighted = is_weighted(sourceweights) && is_weighted(destweights);
    if (t->weighted) {
      t->source_weights = weights_of(sourceweights, indegree, "sourceweights");
      t->destination_weights = weights_of(destweights, outdegree, "destweights");
    }
    t->sources.assign(sources, sources + indegree);
    t->destinations.assign(destinations, destinations + outdegree);
    label_in_order(*t);
    MPI_Comm made = weft::mpi::topology_comm(parent, parent.group.size());
    weft::mpi::comm_of(made).topology = t;
    *comm_dist_graph = made;
  });
}
WEFT_MPI_ALIAS(Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm* comm_dist_graph) {
  (void)info;     // no hints are used
  (void)reorder;  // a hint: ranks keep their order
  return mpi_call("MPI_Dist_graph_create", comm_old, [&] {
    const MPI_ABI_Comm& parent = communicator(comm_old, "MPI_Dist_graph_create");
    require_pointer(comm_dist_graph, "comm_dist_graph");
    if (n < 0) throw MpiError(MPI_ERR_ARG, "n " + std::to_string(n) + " is negative");
    check_ranks(sources, n, parent, "sources");
    if (n > 0) require_pointer(degrees, "degrees");
    int total = 0;
    for (int i = 0; i < n; ++i) {
      if (degrees[i] < 0) {
        throw MpiError(MPI_ERR_ARG, "degrees[" + std::to_string(i) +
                                        "] = " + std::to_string(degrees[i]) + " is negative");
      }
      total += degrees[i];
    }
    check_ranks(destinations, total, parent, "destinations");
    std::vector<int> given_weights = weights_of(weights, total, "weights");
    // This rank's edges as (source, destination, weight) triples, gathered everywhere:
    // each rank then keeps those that start or end at it, in the order of the ranks
    // that gave them.
    std::vector<int32_t> mine;
    for (int i = 0, e = 0; i < n; ++i) {
      for (int k = 0; k < degrees[i]; ++k, ++e) {
        mine.insert(mine.end(), {sources[i], destinations[e],
                                 given_weights.empty() ? 1 : given_weights[size_t(e)]});
      }
    }
    MPI_Comm made = weft::mpi::topology_comm(parent, parent.group.size());
    const weft::Group& group = weft::mpi::comm_of(made).group;
    int size = group.size(), me = group.rank();
    std::vector<uint64_t> header = {mine.size(), is_weighted(weights) ? 1u : 0u};
    std::vector<uint64_t> headers(2 * static_cast<size_t>(size));
    weft::all_gather(weft::Tensor(header.data(), 2, weft::DType::kUInt64),
                     weft::Tensor(headers.data(), headers.size(), weft::DType::kUInt64), group);
    std::vector<uint64_t> counts(static_cast<size_t>(size));
    uint64_t all_count = 0;
    auto t = std::make_shared<Topology>();
    t->kind = MPI_DIST_GRAPH;
    for (int r = 0; r < size; ++r) {
      counts[size_t(r)] = headers[2 * size_t(r)];
      all_count += counts[size_t(r)];
      if (headers[2 * size_t(r) + 1]) t->weighted = true;
    }
    mine.push_back(0);  // never an empty buffer
    std::vector<int32_t> all(all_count + 1);
    weft::all_gatherv(weft::Tensor(mine.data(), mine.size() - 1, weft::DType::kInt32),
                      weft::Tensor(all.data(), all_count, weft::DType::kInt32), counts, {}, group);
    for (uint64_t i = 0; i + 2 < all_count + 1; i += 3) {
      int from = all[i], to = all[i + 1], weight = all[i + 2];
      if (to == me) {
        t->sources.push_back(from);
        if (t->weighted) t->source_weights.push_back(weight);
      }
      if (from == me) {
        t->destinations.push_back(to);
        if (t->weighted) t->destination_weights.push_back(weight);
      }
    }
    label_in_order(*t);
    weft::mpi::comm_of(made).topology = t;
    *comm_dist_graph = made;
  });
}
WEFT_MPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  return mpi_call("MPI_Dist_graph_neighbors_count", comm, [&] {
    const Topology& t =
        topology_of(communicator(comm, "MPI_Dist_graph_neighbors_count"), MPI_DIST_GRAPH);
    require_pointer(indegree, "indegree");
    require_pointer(outdegree, "outdegree");
    require_pointer(weighted, "weighted");
    *indegree = static_cast<int>(t.sources.size());
    *outdegree = static_cast<int>(t.destinations.size());
    *weighted = t.weighted ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  return mpi_call("MPI_Dist_graph_neighbors", comm, [&] {
    const Topology& t = topology_of(communicator(comm, "MPI_Dist_graph_neighbors"), MPI_DIST_GRAPH);
    if (maxindegree < static_cast<int>(t.sources.size()) ||
        maxoutdegree < static_cast<int>(t.destinations.size())) {
      throw MpiError(MPI_ERR_ARG, "maxindegree " + std::to_string(maxindegree) +
                                      " or maxoutdegree " + std::to_string(maxoutdegree) +
                                      " is below the degree (" + std::to_string(t.sources.size()) +
                                      " in, " + std::to_string(t.destinations.size()) + " out)");
    }
    // Weights go only where the program gave an array for them.
    auto writable = [](const int* w) {
      return w != nullptr && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
    };
    if (!t.sources.empty()) require_pointer(sources, "sources");
    if (!t.destinations.empty()) require_pointer(destinations, "destinations");
    std::copy(t.sources.begin(), t.sources.end(), sources);
    std::copy(t.destinations.begin(), t.destinations.end(), destinations);
    if (t.weighted && writable(sourceweights)) {
      std::copy(t.source_weights.begin(), t.source_weights.end(), sourceweights);
    }
    if (t.weighted && writable(destweights)) {
      std::copy(t.destination_weights.begin(), t.destination_weights.end(), destweights);
    }
  });
}
WEFT_MPI_ALIAS(Dist_graph_neighbors)

}  // extern "C"

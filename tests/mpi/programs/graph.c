/*
 * graph.c - graph topologies (MPI_Graph_create) and the neighbourhood collectives on
 * them.
 *
 * The graph: node i's neighbours are i - 1, i + 1 (mod N) and i itself, so with one or
 * two ranks a rank is another's neighbour more than once. Checks, on every rank:
 *   1. MPI_Topo_test, MPI_Graphdims_get, MPI_Graph_get, MPI_Graph_neighbors_count and
 *      MPI_Graph_neighbors for every node, on the graph and on its MPI_Comm_dup.
 *   2. MPI_Graph_map, and a graph of N - 1 nodes (N > 1): the last rank gets
 *      MPI_COMM_NULL, the others their own rank from MPI_Graph_map.
 *   3. MPI_Neighbor_alltoall, MPI_Neighbor_allgatherv and MPI_Ineighbor_allgather:
 *      between two ranks that are neighbours more than once, the k-th block one sends
 *      the other lands in the other's k-th block from it (the order point-to-point
 *      messages keep).
 *
 * Prints "graph: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "graph"
#include "check.h"

#define DEGREE 3
#define BLOCK 2

static int size;

static void neighbors_of(int node, int out[DEGREE]) {
  out[0] = (node - 1 + size) % size;
  out[1] = (node + 1) % size;
  out[2] = node;
}

/* What `sender` sends in its block k, element i. */
static int sent(int sender, int k, int i) { return sender * 1000 + k * 10 + i; }

/* Which block of `sender` arrives in `me`'s block k from it: the t-th time `me` appears
 * among the sender's neighbours, t being how often the sender appears before k in mine. */
static int matching_block(int me, int k) {
  int mine[DEGREE], theirs[DEGREE], t = 0, j;
  neighbors_of(me, mine);
  for (j = 0; j < k; j++) t += mine[j] == mine[k];
  neighbors_of(mine[k], theirs);
  for (j = 0; j < DEGREE; j++) {
    if (theirs[j] == me && t-- == 0) return j;
  }
  fail("the graph is not symmetric");
  return -1;
}

static void check_graph(MPI_Comm graph) {
  int status, nnodes, nedges, index[64], edges[3 * 64], node, k, count, found[DEGREE];
  int expect[DEGREE];
  CHECK_MPI(MPI_Topo_test(graph, &status));
  EXPECT_INT("MPI_Topo_test", status, MPI_GRAPH);
  CHECK_MPI(MPI_Graphdims_get(graph, &nnodes, &nedges));
  EXPECT_INT("MPI_Graphdims_get: nnodes", nnodes, size);
  EXPECT_INT("MPI_Graphdims_get: nedges", nedges, DEGREE * size);
  CHECK_MPI(MPI_Graph_get(graph, 64, 3 * 64, index, edges));
  for (node = 0; node < size; node++) {
    EXPECT_INT("MPI_Graph_get: index", index[node], DEGREE * (node + 1));
    neighbors_of(node, expect);
    for (k = 0; k < DEGREE; k++)
      EXPECT_INT("MPI_Graph_get: edges", edges[DEGREE * node + k], expect[k]);
    CHECK_MPI(MPI_Graph_neighbors_count(graph, node, &count));
    EXPECT_INT("MPI_Graph_neighbors_count", count, DEGREE);
    CHECK_MPI(MPI_Graph_neighbors(graph, node, DEGREE, found));
    for (k = 0; k < DEGREE; k++) EXPECT_INT("MPI_Graph_neighbors", found[k], expect[k]);
  }
}

static void check_collectives(MPI_Comm graph, int rank) {
  int send[DEGREE * BLOCK], recv[DEGREE * BLOCK + 4], n[DEGREE], k, i;
  int counts[DEGREE], displs[DEGREE];
  MPI_Request request;
  char what[120];
  neighbors_of(rank, n);

  for (k = 0; k < DEGREE; k++) {
    for (i = 0; i < BLOCK; i++) send[k * BLOCK + i] = sent(rank, k, i);
  }
  for (i = 0; i < DEGREE * BLOCK; i++) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, graph));
  for (k = 0; k < DEGREE; k++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "MPI_Neighbor_alltoall: block %d element %d", k, i);
      EXPECT_INT(what, recv[k * BLOCK + i], sent(n[k], matching_block(rank, k), i));
    }
  }

  /* Allgatherv: neighbour k's one block lands k + 1 ints apart, backwards. */
  for (i = 0; i < BLOCK; i++) send[i] = rank * 7 + i;
  for (k = 0; k < DEGREE; k++) {
    counts[k] = BLOCK;
    displs[k] = (DEGREE - 1 - k) * (BLOCK + 1);
  }
  for (i = 0; i < DEGREE * BLOCK + 4; i++) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgatherv(send, BLOCK, MPI_INT, recv, counts, displs, MPI_INT, graph));
  for (k = 0; k < DEGREE; k++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "MPI_Neighbor_allgatherv: block %d element %d", k, i);
      EXPECT_INT(what, recv[displs[k] + i], n[k] * 7 + i);
    }
    if (k > 0) EXPECT_INT("MPI_Neighbor_allgatherv: the gap", recv[displs[k] + BLOCK], -1);
  }

  for (i = 0; i < BLOCK; i++) send[i] = rank * 11 + i;
  for (i = 0; i < DEGREE * BLOCK; i++) recv[i] = -1;
  CHECK_MPI(MPI_Ineighbor_allgather(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, graph, &request));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  for (k = 0; k < DEGREE; k++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "MPI_Ineighbor_allgather: block %d element %d", k, i);
      EXPECT_INT(what, recv[k * BLOCK + i], n[k] * 11 + i);
    }
  }
}

int main(int argc, char **argv) {
  int rank, index[64], edges[3 * 64], node, mapped;
  MPI_Comm graph, dup, smaller;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > 64) fail("at most 64 ranks");

  for (node = 0; node < size; node++) {
    index[node] = DEGREE * (node + 1);
    neighbors_of(node, edges + DEGREE * node);
  }
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  if (graph == MPI_COMM_NULL) fail("MPI_Graph_create gave MPI_COMM_NULL");
  check_graph(graph);
  CHECK_MPI(MPI_Comm_dup(graph, &dup));
  check_graph(dup);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped));
  EXPECT_INT("MPI_Graph_map", mapped, rank);
  check_collectives(graph, rank);
  CHECK_MPI(MPI_Comm_free(&graph));

  if (size > 1) {
    /* Nodes 0..N-2, each linked to itself only. */
    for (node = 0; node < size - 1; node++) {
      index[node] = node + 1;
      edges[node] = node;
    }
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size - 1, index, edges, 0, &smaller));
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size - 1, index, edges, &mapped));
    if (rank == size - 1) {
      /* MPI_Graph_map's answer here (MPI_UNDEFINED) is not checked: Open MPI 4.1 gives
       * the rank. */
      if (smaller != MPI_COMM_NULL) fail("a rank beyond the graph got a communicator");
    } else {
      int s;
      if (smaller == MPI_COMM_NULL) fail("a node of the graph got MPI_COMM_NULL");
      CHECK_MPI(MPI_Comm_size(smaller, &s));
      EXPECT_INT("the smaller graph's size", s, size - 1);
      EXPECT_INT("MPI_Graph_map", mapped, rank);
      CHECK_MPI(MPI_Comm_free(&smaller));
    }
  }
  finalize_and_report(size);
  return 0;
}

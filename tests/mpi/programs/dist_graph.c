/*
 * dist_graph.c - distributed graph topologies and the neighbourhood collectives on them.
 *
 * Checks, on every rank:
 *   1. MPI_Dist_graph_create_adjacent with sources r-1, r-2 and destinations r+1, r+2
 *      (mod N), weighted: MPI_Topo_test, MPI_Dist_graph_neighbors_count and
 *      MPI_Dist_graph_neighbors with their weights, and the same unweighted.
 *   2. MPI_Dist_graph_create, where rank r declares the edges of rank r+1 (mod N): each
 *      rank learns its own edges and weights (in an order the standard leaves open, so
 *      compared sorted).
 *   3. MPI_Neighbor_alltoall, MPI_Neighbor_alltoallw (a derived datatype on one side,
 *      plain ints on the other, byte displacements) and MPI_Ineighbor_alltoallv on both
 *      graphs, against a serial model of who sends what.
 *
 * Prints "dist_graph: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "dist_graph"
#include "check.h"

#define BLOCK 2

static int size, rank;

/* What `from` sends `to`: it depends on the pair only, so repeated edges agree. */
static int sent(int from, int to, int i) { return from * 1000 + to * 10 + i; }

static void sort(int *a, int n) {
  int i, j;
  for (i = 1; i < n; i++) {
    for (j = i; j > 0 && a[j - 1] > a[j]; j--) {
      int t = a[j];
      a[j] = a[j - 1];
      a[j - 1] = t;
    }
  }
}

static void check_exchanges(MPI_Comm graph, const char *name) {
  int indegree, outdegree, weighted, sources[8], destinations[8], k, i;
  int send[8 * BLOCK], recv[8 * BLOCK], counts[8], displs[8], sweights[8], dweights[8];
  MPI_Aint bdispls[8];
  MPI_Datatype types[8], pair;
  MPI_Request request;
  char what[160];
  CHECK_MPI(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted));
  CHECK_MPI(MPI_Dist_graph_neighbors(graph, 8, sources, sweights, 8, destinations, dweights));

  for (k = 0; k < outdegree; k++) {
    for (i = 0; i < BLOCK; i++) send[k * BLOCK + i] = sent(rank, destinations[k], i);
  }
  for (i = 0; i < 8 * BLOCK; i++) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, graph));
  for (k = 0; k < indegree; k++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "%s: MPI_Neighbor_alltoall: block %d element %d", name, k, i);
      EXPECT_INT(what, recv[k * BLOCK + i], sent(sources[k], rank, i));
    }
  }

  /* Alltoallw: sent as one pair of ints each, received as BLOCK ints, blocks reversed. */
  CHECK_MPI(MPI_Type_contiguous(BLOCK, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  for (k = 0; k < outdegree; k++) {
    counts[k] = 1;
    bdispls[k] = (MPI_Aint)(k * BLOCK * sizeof(int));
    types[k] = pair;
    for (i = 0; i < BLOCK; i++) send[k * BLOCK + i] = sent(rank, destinations[k], i) + 7;
  }
  {
    int rcounts[8];
    MPI_Aint rdispls[8];
    MPI_Datatype rtypes[8];
    for (k = 0; k < indegree; k++) {
      rcounts[k] = BLOCK;
      rdispls[k] = (MPI_Aint)((indegree - 1 - k) * BLOCK * sizeof(int));
      rtypes[k] = MPI_INT;
    }
    for (i = 0; i < 8 * BLOCK; i++) recv[i] = -1;
    CHECK_MPI(MPI_Neighbor_alltoallw(send, counts, bdispls, types, recv, rcounts, rdispls, rtypes,
                                     graph));
    for (k = 0; k < indegree; k++) {
      for (i = 0; i < BLOCK; i++) {
        snprintf(what, sizeof what, "%s: MPI_Neighbor_alltoallw: block %d element %d", name, k, i);
        EXPECT_INT(what, recv[(indegree - 1 - k) * BLOCK + i], sent(sources[k], rank, i) + 7);
      }
    }
  }
  CHECK_MPI(MPI_Type_free(&pair));

  /* Ialltoallv: one int to each destination, at every other place. */
  for (k = 0; k < outdegree; k++) {
    counts[k] = 1;
    displs[k] = 2 * k;
    send[2 * k] = sent(rank, destinations[k], 9);
  }
  {
    int rcounts[8], rdispls[8];
    for (k = 0; k < indegree; k++) {
      rcounts[k] = 1;
      rdispls[k] = 2 * k + 1;
    }
    for (i = 0; i < 8 * BLOCK; i++) recv[i] = -1;
    CHECK_MPI(MPI_Ineighbor_alltoallv(send, counts, displs, MPI_INT, recv, rcounts, rdispls,
                                      MPI_INT, graph, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    for (k = 0; k < indegree; k++) {
      snprintf(what, sizeof what, "%s: MPI_Ineighbor_alltoallv: block %d", name, k);
      EXPECT_INT(what, recv[2 * k + 1], sent(sources[k], rank, 9));
      EXPECT_INT(what, recv[2 * k], -1);
    }
  }
}

static void check_adjacent(void) {
  int sources[2], destinations[2], sweights[2], dweights[2], k, status;
  int indegree, outdegree, weighted, got_s[2], got_d[2], got_sw[2], got_dw[2];
  MPI_Comm graph;
  for (k = 0; k < 2; k++) {
    sources[k] = ((rank - 1 - k) % size + size) % size;
    destinations[k] = (rank + 1 + k) % size;
    sweights[k] = 10 + k;
    dweights[k] = 20 + k;
  }
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sweights, 2, destinations,
                                           dweights, MPI_INFO_NULL, 0, &graph));
  CHECK_MPI(MPI_Topo_test(graph, &status));
  EXPECT_INT("MPI_Topo_test", status, MPI_DIST_GRAPH);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted));
  EXPECT_INT("adjacent: indegree", indegree, 2);
  EXPECT_INT("adjacent: outdegree", outdegree, 2);
  EXPECT_INT("adjacent: weighted", weighted != 0, 1);
  CHECK_MPI(MPI_Dist_graph_neighbors(graph, 2, got_s, got_sw, 2, got_d, got_dw));
  for (k = 0; k < 2; k++) {
    EXPECT_INT("adjacent: sources", got_s[k], sources[k]);
    EXPECT_INT("adjacent: destinations", got_d[k], destinations[k]);
    EXPECT_INT("adjacent: source weights", got_sw[k], sweights[k]);
    EXPECT_INT("adjacent: destination weights", got_dw[k], dweights[k]);
  }
  check_exchanges(graph, "adjacent");
  CHECK_MPI(MPI_Comm_free(&graph));

  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2,
                                           destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted));
  EXPECT_INT("unweighted: weighted", weighted, 0);
  CHECK_MPI(MPI_Comm_free(&graph));
}

static void check_general(void) {
  /* Rank r declares rank s = r+1's edges: s -> s+1 and s -> s+3, weighted 100s + 1, + 3. */
  int source = (rank + 1) % size, degree = 2, destinations[2], weights[2], k;
  int indegree, outdegree, weighted, got_s[8], got_d[8], got_sw[8], got_dw[8];
  int expect_s[2], expect_d[2];
  MPI_Comm graph;
  destinations[0] = (source + 1) % size;
  destinations[1] = (source + 3) % size;
  weights[0] = 100 * source + 1;
  weights[1] = 100 * source + 3;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations, weights,
                                  MPI_INFO_NULL, 0, &graph));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted));
  EXPECT_INT("general: indegree", indegree, 2);
  EXPECT_INT("general: outdegree", outdegree, 2);
  EXPECT_INT("general: weighted", weighted != 0, 1);
  CHECK_MPI(MPI_Dist_graph_neighbors(graph, 8, got_s, got_sw, 8, got_d, got_dw));
  /* Each weight names its edge: check the pairs, then the sorted lists. */
  for (k = 0; k < 2; k++) {
    int in_step = got_sw[k] % 100, out_step = got_dw[k] % 100;
    EXPECT_INT("general: a source's weight", got_sw[k], 100 * got_s[k] + in_step);
    EXPECT_INT("general: the source at that step", (got_s[k] + in_step) % size, rank);
    EXPECT_INT("general: a destination's weight", got_dw[k], 100 * rank + out_step);
    EXPECT_INT("general: the destination at that step", got_d[k], (rank + out_step) % size);
  }
  expect_s[0] = ((rank - 1) % size + size) % size;
  expect_s[1] = ((rank - 3) % size + size) % size;
  expect_d[0] = (rank + 1) % size;
  expect_d[1] = (rank + 3) % size;
  sort(expect_s, 2);
  sort(expect_d, 2);
  sort(got_s, 2);
  sort(got_d, 2);
  for (k = 0; k < 2; k++) {
    EXPECT_INT("general: sources", got_s[k], expect_s[k]);
    EXPECT_INT("general: destinations", got_d[k], expect_d[k]);
  }
  check_exchanges(graph, "general");
  CHECK_MPI(MPI_Comm_free(&graph));

  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, destinations, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &graph));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted));
  EXPECT_INT("general unweighted: weighted", weighted, 0);
  EXPECT_INT("general unweighted: indegree", indegree, 2);
  CHECK_MPI(MPI_Comm_free(&graph));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  check_adjacent();
  check_general();
  finalize_and_report(size);
  return 0;
}

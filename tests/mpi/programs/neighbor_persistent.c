/*
 * neighbor_persistent.c - the persistent neighbourhood collectives of MPI-4
 * (MPI_Neighbor_*_init), on a periodic ring (MPI_Cart_create) and on a distributed graph.
 *
 * Checks, on every rank: each of MPI_Neighbor_allgather_init, _allgatherv_init,
 * _alltoall_init, _alltoallv_init and _alltoallw_init is started three times (MPI_Start,
 * then MPI_Startall for the rest), with new send data each time, and every block holds
 * what its neighbour sent that round; the requests are freed at the end. On the ring,
 * what a rank sends towards its +1 neighbour arrives in that neighbour's block from its
 * -1 neighbour, even where both are one rank (one or two ranks).
 *
 * Prints "neighbor_persistent: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "neighbor_persistent"
#include "check.h"

#define BLOCK 2
#define ROUNDS 3
#define OPS 5

static int rank, size;

/* What `sender` sends in its block k of round `round`, element i. */
static int sent(int sender, int k, int round, int i) {
  return sender * 10000 + k * 1000 + round * 10 + i;
}

/* One topology: neighbour lists in block order, and which block of the sender lands in
 * block k (`their_block[k]`). */
struct topo {
  MPI_Comm comm;
  const char *name;
  int degree, in[2], their_block[2];
};

static void run_round(const struct topo *t, MPI_Request requests[OPS], int send[],
                      int recv[OPS][2 * BLOCK + 2], int round) {
  int op, k, i;
  char what[160];
  for (k = 0; k < 2; k++) {
    for (i = 0; i < BLOCK; i++) send[k * BLOCK + i] = sent(rank, k, round, i);
  }
  for (op = 0; op < OPS; op++) {
    for (i = 0; i < 2 * BLOCK + 2; i++) recv[op][i] = -1;
  }
  CHECK_MPI(MPI_Start(&requests[0]));
  CHECK_MPI(MPI_Startall(OPS - 1, requests + 1));
  CHECK_MPI(MPI_Waitall(OPS, requests, MPI_STATUSES_IGNORE));
  for (k = 0; k < t->degree; k++) {
    int from = t->in[k], block = t->their_block[k];
    for (i = 0; i < BLOCK; i++) {
      /* allgather(v): the neighbour's block 0; alltoall(v, w): its matching block. */
      snprintf(what, sizeof what, "%s round %d: allgather block %d", t->name, round, k);
      EXPECT_INT(what, recv[0][k * BLOCK + i], sent(from, 0, round, i));
      snprintf(what, sizeof what, "%s round %d: allgatherv block %d", t->name, round, k);
      EXPECT_INT(what, recv[1][(1 - k) * (BLOCK + 1) + i], sent(from, 0, round, i));
      snprintf(what, sizeof what, "%s round %d: alltoall block %d", t->name, round, k);
      EXPECT_INT(what, recv[2][k * BLOCK + i], sent(from, block, round, i));
      snprintf(what, sizeof what, "%s round %d: alltoallv block %d", t->name, round, k);
      EXPECT_INT(what, recv[3][(1 - k) * (BLOCK + 1) + i], sent(from, block, round, i));
      snprintf(what, sizeof what, "%s round %d: alltoallw block %d", t->name, round, k);
      EXPECT_INT(what, recv[4][k * (BLOCK + 1) + i], sent(from, block, round, i));
    }
  }
}

static void check(const struct topo *t) {
  static int send[2 * BLOCK], recv[OPS][2 * BLOCK + 2];
  int counts[2] = {BLOCK, BLOCK}, gap_displs[2] = {BLOCK + 1, 0}, sdispls[2] = {0, BLOCK};
  MPI_Aint wsdispls[2] = {0, BLOCK * sizeof(int)};
  MPI_Aint wrdispls[2] = {0, (BLOCK + 1) * sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT}, pair, pairs[2];
  MPI_Request requests[OPS];
  int wcounts[2] = {1, 1}, round, op;
  CHECK_MPI(MPI_Type_contiguous(BLOCK, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  pairs[0] = pairs[1] = pair;
  CHECK_MPI(MPI_Neighbor_allgather_init(send, BLOCK, MPI_INT, recv[0], BLOCK, MPI_INT, t->comm,
                                        MPI_INFO_NULL, &requests[0]));
  CHECK_MPI(MPI_Neighbor_allgatherv_init(send, BLOCK, MPI_INT, recv[1], counts, gap_displs, MPI_INT,
                                         t->comm, MPI_INFO_NULL, &requests[1]));
  CHECK_MPI(MPI_Neighbor_alltoall_init(send, BLOCK, MPI_INT, recv[2], BLOCK, MPI_INT, t->comm,
                                       MPI_INFO_NULL, &requests[2]));
  CHECK_MPI(MPI_Neighbor_alltoallv_init(send, counts, sdispls, MPI_INT, recv[3], counts, gap_displs,
                                        MPI_INT, t->comm, MPI_INFO_NULL, &requests[3]));
  CHECK_MPI(MPI_Neighbor_alltoallw_init(send, wcounts, wsdispls, pairs, recv[4], counts, wrdispls,
                                        types, t->comm, MPI_INFO_NULL, &requests[4]));
  /* The type may go once the operation holds it. */
  CHECK_MPI(MPI_Type_free(&pair));
  for (round = 0; round < ROUNDS; round++) run_round(t, requests, send, recv, round);
  for (op = 0; op < OPS; op++) {
    CHECK_MPI(MPI_Request_free(&requests[op]));
    if (requests[op] != MPI_REQUEST_NULL) fail("MPI_Request_free left a request");
  }
}

int main(int argc, char **argv) {
  struct topo ring, graph;
  int dims, periods = 1, sources[2], destinations[2];
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* The ring: block 0 from the -1 neighbour, which sent it towards +1 (its block 1). */
  dims = size;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring.comm));
  ring.name = "ring";
  ring.degree = 2;
  ring.in[0] = (rank - 1 + size) % size;
  ring.in[1] = (rank + 1) % size;
  ring.their_block[0] = 1;
  ring.their_block[1] = 0;
  check(&ring);
  CHECK_MPI(MPI_Comm_free(&ring.comm));

  /* The graph: from r - 1 and r - 2, to r + 1 and r + 2, in order; with one or two ranks
   * the repeated edges meet in order. */
  sources[0] = (rank - 1 + 2 * size) % size;
  sources[1] = (rank - 2 + 2 * size) % size;
  destinations[0] = (rank + 1) % size;
  destinations[1] = (rank + 2) % size;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2,
                                           destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                           &graph.comm));
  graph.name = "graph";
  graph.degree = 2;
  graph.in[0] = sources[0];
  graph.in[1] = sources[1];
  {
    /* Block k from sources[k]: its destination list holds this rank at some positions;
     * the t-th of them, t counting earlier blocks from the same rank. */
    int k;
    for (k = 0; k < 2; k++) {
      int from = sources[k], t = (k == 1 && sources[0] == sources[1]) ? 1 : 0, j;
      int theirs[2] = {(from + 1) % size, (from + 2) % size};
      graph.their_block[k] = -1;
      for (j = 0; j < 2; j++) {
        if (theirs[j] == rank && t-- == 0) {
          graph.their_block[k] = j;
          break;
        }
      }
    }
  }
  check(&graph);
  CHECK_MPI(MPI_Comm_free(&graph.comm));
  finalize_and_report(size);
  return 0;
}

/*
 * neighbor_large_count.c - the large-count neighbourhood collectives of MPI-4
 * (MPI_Neighbor_*_c, MPI_Ineighbor_*_c, MPI_Neighbor_*_init_c: MPI_Count counts and
 * MPI_Aint displacements), on a periodic Dims_create(N, 2) grid.
 *
 * Checks, on every rank: each of the fifteen functions (allgather, allgatherv, alltoall,
 * alltoallv, alltoallw; blocking, non-blocking and persistent) fills every block with
 * what its neighbour sent. Sends towards a +1 neighbour arrive in its block from the -1
 * neighbour and the other way round, as MPI-4 specifies, also where a dimension of size
 * 1 or 2 makes both neighbours one rank.
 *
 * Prints "neighbor_large_count: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "neighbor_large_count"
#include "check.h"

#define SLOTS 4
#define BLOCK 3
#define STRIDE (BLOCK + 1)

enum { BLOCKING, NONBLOCKING, PERSISTENT };
enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, OPS };
static const char *op_names[OPS] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                    "alltoallw"};
static const char *mode_names[3] = {"blocking", "non-blocking", "persistent"};

static int rank, size, dims[2];

static int coord_rank(int c0, int c1) {
  c0 = (c0 % dims[0] + dims[0]) % dims[0];
  c1 = (c1 % dims[1] + dims[1]) % dims[1];
  return c0 * dims[1] + c1;
}

static void neighbors_of(int r, int n[SLOTS]) {
  int c0 = r / dims[1], c1 = r % dims[1];
  n[0] = coord_rank(c0 - 1, c1);
  n[1] = coord_rank(c0 + 1, c1);
  n[2] = coord_rank(c0, c1 - 1);
  n[3] = coord_rank(c0, c1 + 1);
}

static int sent(int sender, int slot, int i) { return sender * 1000 + slot * 10 + i; }

/* Starts (or runs) one operation; the request is set unless blocking. */
static void start(int op, int mode, MPI_Comm cart, const int *send, int *recv,
                  MPI_Request *request) {
  MPI_Count counts[SLOTS];
  MPI_Aint displs[SLOTS], sdispls[SLOTS], bytes_s[SLOTS], bytes_r[SLOTS];
  MPI_Datatype types[SLOTS];
  int s;
  for (s = 0; s < SLOTS; s++) {
    counts[s] = BLOCK;
    displs[s] = (MPI_Aint)(SLOTS - 1 - s) * STRIDE; /* backwards, with gaps */
    sdispls[s] = (MPI_Aint)s * BLOCK;
    bytes_s[s] = sdispls[s] * (MPI_Aint)sizeof(int);
    bytes_r[s] = displs[s] * (MPI_Aint)sizeof(int);
    types[s] = MPI_INT;
  }
  switch (op * 3 + mode) {
    case ALLGATHER * 3 + BLOCKING:
      CHECK_MPI(MPI_Neighbor_allgather_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart));
      break;
    case ALLGATHER * 3 + NONBLOCKING:
      CHECK_MPI(
          MPI_Ineighbor_allgather_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart, request));
      break;
    case ALLGATHER * 3 + PERSISTENT:
      CHECK_MPI(MPI_Neighbor_allgather_init_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart,
                                              MPI_INFO_NULL, request));
      break;
    case ALLGATHERV * 3 + BLOCKING:
      CHECK_MPI(
          MPI_Neighbor_allgatherv_c(send, BLOCK, MPI_INT, recv, counts, displs, MPI_INT, cart));
      break;
    case ALLGATHERV * 3 + NONBLOCKING:
      CHECK_MPI(MPI_Ineighbor_allgatherv_c(send, BLOCK, MPI_INT, recv, counts, displs, MPI_INT,
                                           cart, request));
      break;
    case ALLGATHERV * 3 + PERSISTENT:
      CHECK_MPI(MPI_Neighbor_allgatherv_init_c(send, BLOCK, MPI_INT, recv, counts, displs, MPI_INT,
                                               cart, MPI_INFO_NULL, request));
      break;
    case ALLTOALL * 3 + BLOCKING:
      CHECK_MPI(MPI_Neighbor_alltoall_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart));
      break;
    case ALLTOALL * 3 + NONBLOCKING:
      CHECK_MPI(
          MPI_Ineighbor_alltoall_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart, request));
      break;
    case ALLTOALL * 3 + PERSISTENT:
      CHECK_MPI(MPI_Neighbor_alltoall_init_c(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart,
                                             MPI_INFO_NULL, request));
      break;
    case ALLTOALLV * 3 + BLOCKING:
      CHECK_MPI(MPI_Neighbor_alltoallv_c(send, counts, sdispls, MPI_INT, recv, counts, displs,
                                         MPI_INT, cart));
      break;
    case ALLTOALLV * 3 + NONBLOCKING:
      CHECK_MPI(MPI_Ineighbor_alltoallv_c(send, counts, sdispls, MPI_INT, recv, counts, displs,
                                          MPI_INT, cart, request));
      break;
    case ALLTOALLV * 3 + PERSISTENT:
      CHECK_MPI(MPI_Neighbor_alltoallv_init_c(send, counts, sdispls, MPI_INT, recv, counts, displs,
                                              MPI_INT, cart, MPI_INFO_NULL, request));
      break;
    case ALLTOALLW * 3 + BLOCKING:
      CHECK_MPI(MPI_Neighbor_alltoallw_c(send, counts, bytes_s, types, recv, counts, bytes_r, types,
                                         cart));
      break;
    case ALLTOALLW * 3 + NONBLOCKING:
      CHECK_MPI(MPI_Ineighbor_alltoallw_c(send, counts, bytes_s, types, recv, counts, bytes_r,
                                          types, cart, request));
      break;
    case ALLTOALLW * 3 + PERSISTENT:
      CHECK_MPI(MPI_Neighbor_alltoallw_init_c(send, counts, bytes_s, types, recv, counts, bytes_r,
                                              types, cart, MPI_INFO_NULL, request));
      break;
  }
  if (mode == PERSISTENT) CHECK_MPI(MPI_Start(request));
}

int main(int argc, char **argv) {
  int periods[2] = {1, 1}, send[SLOTS * BLOCK], recv[SLOTS * STRIDE], n[SLOTS];
  int op, mode, s, i;
  MPI_Comm cart;
  char what[160];
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  dims[0] = dims[1] = 0;
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  neighbors_of(rank, n);
  for (op = 0; op < OPS; op++) {
    for (mode = BLOCKING; mode <= PERSISTENT; mode++) {
      MPI_Request request = MPI_REQUEST_NULL;
      int gather = op == ALLGATHER || op == ALLGATHERV;
      int backwards = op == ALLGATHERV || op == ALLTOALLV || op == ALLTOALLW;
      for (s = 0; s < SLOTS; s++) {
        for (i = 0; i < BLOCK; i++) send[s * BLOCK + i] = sent(rank, s, i) + op * 100000;
      }
      for (i = 0; i < SLOTS * STRIDE; i++) recv[i] = -1;
      start(op, mode, cart, send, recv, &request);
      if (mode != BLOCKING) CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
      if (mode == PERSISTENT) CHECK_MPI(MPI_Request_free(&request));
      for (s = 0; s < SLOTS; s++) {
        /* A gather sends block 0 everywhere; otherwise slot s holds what the neighbour
         * sent the opposite way (slot s ^ 1). */
        int at = backwards ? (SLOTS - 1 - s) * STRIDE : s * BLOCK;
        for (i = 0; i < BLOCK; i++) {
          snprintf(what, sizeof what, "%s %s: slot %d element %d", mode_names[mode], op_names[op],
                   s, i);
          EXPECT_INT(what, recv[at + i], sent(n[s], gather ? 0 : s ^ 1, i) + op * 100000);
        }
      }
    }
  }
  CHECK_MPI(MPI_Comm_free(&cart));
  finalize_and_report(size);
  return 0;
}

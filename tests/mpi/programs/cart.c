/*
 * cart.c - Cartesian topologies and the neighbourhood collectives on them.
 *
 * Checks, on every rank:
 *   1. MPI_Cart_create over a Dims_create(N, 2) grid, periodic in dimension 0 only:
 *      MPI_Topo_test, MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_coords and MPI_Cart_rank
 *      for every rank (row-major), MPI_Cart_rank wrapping in the periodic dimension,
 *      MPI_Cart_shift (MPI_PROC_NULL off the non-periodic edges) against a serial
 *      computation, and MPI_Comm_dup keeping the topology.
 *   2. MPI_Cart_sub keeping each dimension: sizes, ranks and the sub-grid's topology.
 *   3. A grid smaller than the world (N - 1 ranks, N > 1): the last rank gets
 *      MPI_COMM_NULL; MPI_Cart_map agrees on the others; a zero-dimensional grid has one rank.
 *   4. MPI_Neighbor_allgather, MPI_Neighbor_alltoall (a strided vector datatype on the
 *      send side), MPI_Neighbor_alltoallv and MPI_Ineighbor_alltoall on the grid: each
 *      block holds its sender's data, and blocks of MPI_PROC_NULL neighbours are left
 *      untouched. A neighbour that is the same rank in both directions (a periodic
 *      dimension of size 1 or 2) is sent the same data both ways, whose order the
 *      standard's earlier versions left open.
 *   5. MPI_ERRORS_RETURN: MPI_Cart_rank outside a non-periodic dimension fails,
 *      MPI_Cartdim_get on MPI_COMM_WORLD returns MPI_ERR_TOPOLOGY.
 *
 * Prints "cart: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "cart"
#include "check.h"

#define BLOCK 3

static int dims[2], periods[2] = {1, 0};

static void coords_of(int rank, int c[2]) {
  c[0] = rank / dims[1];
  c[1] = rank % dims[1];
}

/* The rank at (c0, c1) in the serial model, or MPI_PROC_NULL off the grid. */
static int rank_at(int c0, int c1) {
  if (periods[0]) c0 = ((c0 % dims[0]) + dims[0]) % dims[0];
  if (c0 < 0 || c0 >= dims[0] || c1 < 0 || c1 >= dims[1]) return MPI_PROC_NULL;
  return c0 * dims[1] + c1;
}

/* The neighbours in the standard's order: per dimension, -1 then +1. */
static void neighbors_of(int rank, int out[4]) {
  int c[2];
  coords_of(rank, c);
  out[0] = rank_at(c[0] - 1, c[1]);
  out[1] = rank_at(c[0] + 1, c[1]);
  out[2] = rank_at(c[0], c[1] - 1);
  out[3] = rank_at(c[0], c[1] + 1);
}

/* What `sender` sends towards neighbour slot `slot` (0..3), element i. The same both
 * ways along a dimension whose two neighbours are one rank. */
static int sent(int sender, int slot, int i) {
  int n[4];
  neighbors_of(sender, n);
  int dim = slot / 2;
  if (n[2 * dim] == n[2 * dim + 1]) slot = 2 * dim;
  return sender * 1000 + slot * 10 + i;
}

/* What arrives in slot `slot` from that neighbour: it sent it in the opposite direction
 * (slot ^ 1). */
static int expected(int me, int slot, int i) {
  int n[4];
  neighbors_of(me, n);
  return sent(n[slot], slot ^ 1, i);
}

static void check_topology(MPI_Comm cart, int rank, int size) {
  int status, ndims, d[2], p[2], c[2], r, k;
  CHECK_MPI(MPI_Topo_test(cart, &status));
  EXPECT_INT("MPI_Topo_test", status, MPI_CART);
  CHECK_MPI(MPI_Cartdim_get(cart, &ndims));
  EXPECT_INT("MPI_Cartdim_get", ndims, 2);
  {
    int mine[2];
    coords_of(rank, mine);
    CHECK_MPI(MPI_Cart_get(cart, 2, d, p, c));
    for (k = 0; k < 2; k++) {
      EXPECT_INT("MPI_Cart_get: dims", d[k], dims[k]);
      EXPECT_INT("MPI_Cart_get: periods", p[k] != 0, periods[k]);
      EXPECT_INT("MPI_Cart_get: coords", c[k], mine[k]);
    }
  }
  for (r = 0; r < size; r++) {
    int expect[2], got;
    coords_of(r, expect);
    CHECK_MPI(MPI_Cart_coords(cart, r, 2, c));
    EXPECT_INT("MPI_Cart_coords[0]", c[0], expect[0]);
    EXPECT_INT("MPI_Cart_coords[1]", c[1], expect[1]);
    CHECK_MPI(MPI_Cart_rank(cart, c, &got));
    EXPECT_INT("MPI_Cart_rank", got, r);
    c[0] += 3 * dims[0]; /* periodic: wraps */
    CHECK_MPI(MPI_Cart_rank(cart, c, &got));
    EXPECT_INT("MPI_Cart_rank (wrapped)", got, r);
  }
  for (k = 0; k < 2; k++) {
    int disp;
    for (disp = -2; disp <= 2; disp++) {
      int src, dst, mine[2];
      coords_of(rank, mine);
      CHECK_MPI(MPI_Cart_shift(cart, k, disp, &src, &dst));
      EXPECT_INT("MPI_Cart_shift: source", src,
                 k == 0 ? rank_at(mine[0] - disp, mine[1]) : rank_at(mine[0], mine[1] - disp));
      EXPECT_INT("MPI_Cart_shift: dest", dst,
                 k == 0 ? rank_at(mine[0] + disp, mine[1]) : rank_at(mine[0], mine[1] + disp));
    }
  }
}

static void check_sub(MPI_Comm cart, int rank) {
  int k, mine[2];
  coords_of(rank, mine);
  for (k = 0; k < 2; k++) {
    int remain[2] = {k == 0, k == 1}, sub_size, sub_rank, ndims, d, p, c;
    MPI_Comm sub;
    CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
    CHECK_MPI(MPI_Comm_size(sub, &sub_size));
    CHECK_MPI(MPI_Comm_rank(sub, &sub_rank));
    EXPECT_INT("MPI_Cart_sub: size", sub_size, dims[k]);
    EXPECT_INT("MPI_Cart_sub: rank", sub_rank, mine[k]);
    CHECK_MPI(MPI_Cartdim_get(sub, &ndims));
    EXPECT_INT("MPI_Cart_sub: ndims", ndims, 1);
    CHECK_MPI(MPI_Cart_get(sub, 1, &d, &p, &c));
    EXPECT_INT("MPI_Cart_sub: dims", d, dims[k]);
    EXPECT_INT("MPI_Cart_sub: periods", p != 0, periods[k]);
    EXPECT_INT("MPI_Cart_sub: coords", c, mine[k]);
    CHECK_MPI(MPI_Comm_free(&sub));
  }
}

static void check_smaller_grids(int rank, int size) {
  int d = size > 1 ? size - 1 : 1, p = 0, mapped;
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &d, &p, 1, &cart));
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, &d, &p, &mapped));
  if (rank < d) {
    int r;
    if (cart == MPI_COMM_NULL) fail("MPI_Cart_create: rank %d of %d got MPI_COMM_NULL", rank, d);
    CHECK_MPI(MPI_Comm_rank(cart, &r));
    EXPECT_INT("MPI_Cart_map", mapped, r);
    CHECK_MPI(MPI_Comm_free(&cart));
  } else {
    /* MPI_Cart_map's answer here (MPI_UNDEFINED) is not checked: Open MPI 4.1 gives the
     * rank. */
    if (cart != MPI_COMM_NULL) fail("MPI_Cart_create: a rank beyond the grid got a communicator");
  }
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
  if (rank == 0) {
    int ndims, s;
    if (cart == MPI_COMM_NULL) fail("a zero-dimensional grid: rank 0 got MPI_COMM_NULL");
    CHECK_MPI(MPI_Cartdim_get(cart, &ndims));
    EXPECT_INT("zero-dimensional MPI_Cartdim_get", ndims, 0);
    CHECK_MPI(MPI_Comm_size(cart, &s));
    EXPECT_INT("zero-dimensional grid size", s, 1);
    CHECK_MPI(MPI_Comm_free(&cart));
  } else if (cart != MPI_COMM_NULL) {
    fail("a zero-dimensional grid: rank %d got a communicator", rank);
  }
}

static void check_neighbor_collectives(MPI_Comm cart, int rank) {
  int send[4 * BLOCK], recv[4 * BLOCK], strided[4 * BLOCK * 2], n[4], s, i;
  int counts[4], displs[4];
  MPI_Datatype every_other;
  MPI_Request request;
  char what[120];
  neighbors_of(rank, n);

  /* Neighbor_allgather: every block is the neighbour's one send block. */
  for (i = 0; i < BLOCK; i++) send[i] = rank * 100 + i;
  for (i = 0; i < 4 * BLOCK; i++) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgather(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart));
  for (s = 0; s < 4; s++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "MPI_Neighbor_allgather: slot %d element %d", s, i);
      EXPECT_INT(what, recv[s * BLOCK + i], n[s] == MPI_PROC_NULL ? -1 : n[s] * 100 + i);
    }
  }

  /* Neighbor_alltoall, sending every other int of a strided buffer. */
  CHECK_MPI(MPI_Type_vector(BLOCK, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  {
    MPI_Datatype resized;
    CHECK_MPI(
        MPI_Type_create_resized(every_other, 0, (MPI_Aint)(2 * BLOCK * sizeof(int)), &resized));
    CHECK_MPI(MPI_Type_commit(&resized));
    for (s = 0; s < 4; s++) {
      for (i = 0; i < BLOCK; i++) {
        strided[s * 2 * BLOCK + 2 * i] = sent(rank, s, i);
        strided[s * 2 * BLOCK + 2 * i + 1] = -7;
      }
    }
    for (i = 0; i < 4 * BLOCK; i++) recv[i] = -1;
    CHECK_MPI(MPI_Neighbor_alltoall(strided, 1, resized, recv, BLOCK, MPI_INT, cart));
    for (s = 0; s < 4; s++) {
      for (i = 0; i < BLOCK; i++) {
        snprintf(what, sizeof what, "MPI_Neighbor_alltoall: slot %d element %d", s, i);
        EXPECT_INT(what, recv[s * BLOCK + i], n[s] == MPI_PROC_NULL ? -1 : expected(rank, s, i));
      }
    }
    CHECK_MPI(MPI_Type_free(&resized));
  }
  CHECK_MPI(MPI_Type_free(&every_other));

  /* Neighbor_alltoallv: block s has s % BLOCK + 1 elements, stored in reverse order. */
  for (s = 0; s < 4; s++) {
    counts[s] = s % BLOCK + 1;
    displs[s] = (3 - s) * BLOCK;
    for (i = 0; i < counts[s]; i++) send[displs[s] + i] = sent(rank, s, i);
  }
  for (i = 0; i < 4 * BLOCK; i++) recv[i] = -1;
  /* The count a slot receives is what its neighbour sends in the opposite direction. */
  {
    int rcounts[4];
    for (s = 0; s < 4; s++) rcounts[s] = (s ^ 1) % BLOCK + 1;
    for (s = 0; s < 4; s++) {
      int dim = s / 2;
      /* The same rank both ways: the standard's earlier versions leave the order open,
       * so the counts must agree too. */
      if (n[2 * dim] == n[2 * dim + 1]) rcounts[s] = counts[s] = 1;
    }
    CHECK_MPI(MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, rcounts, displs, MPI_INT,
                                     cart));
    for (s = 0; s < 4; s++) {
      for (i = 0; i < BLOCK; i++) {
        int value = recv[displs[s] + i];
        snprintf(what, sizeof what, "MPI_Neighbor_alltoallv: slot %d element %d", s, i);
        EXPECT_INT(what, value,
                   n[s] == MPI_PROC_NULL || i >= rcounts[s] ? -1 : expected(rank, s, i));
      }
    }
  }

  /* Ineighbor_alltoall. */
  for (s = 0; s < 4; s++) {
    for (i = 0; i < BLOCK; i++) send[s * BLOCK + i] = sent(rank, s, i) + 500000;
  }
  for (i = 0; i < 4 * BLOCK; i++) recv[i] = -1;
  CHECK_MPI(MPI_Ineighbor_alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, cart, &request));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  for (s = 0; s < 4; s++) {
    for (i = 0; i < BLOCK; i++) {
      snprintf(what, sizeof what, "MPI_Ineighbor_alltoall: slot %d element %d", s, i);
      EXPECT_INT(what, recv[s * BLOCK + i],
                 n[s] == MPI_PROC_NULL ? -1 : expected(rank, s, i) + 500000);
    }
  }
}

static void check_errors(MPI_Comm cart) {
  int c[2] = {0, dims[1]}, r, rc;
  CHECK_MPI(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* The standard names no class for this error (weft: MPI_ERR_RANK, Open MPI: MPI_ERR_ARG). */
  rc = MPI_Cart_rank(cart, c, &r);
  if (rc == MPI_SUCCESS) fail("MPI_Cart_rank outside a non-periodic dimension succeeded");
  rc = MPI_Cartdim_get(MPI_COMM_WORLD, &r);
  MPI_Error_class(rc, &rc);
  EXPECT_INT("MPI_Cartdim_get on MPI_COMM_WORLD", rc, MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  int rank, size, status;
  MPI_Comm cart, dup;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  dims[0] = dims[1] = 0;
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  if (cart == MPI_COMM_NULL) fail("MPI_Cart_create gave MPI_COMM_NULL on a full grid");
  check_topology(cart, rank, size);
  CHECK_MPI(MPI_Comm_dup(cart, &dup));
  check_topology(dup, rank, size);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  EXPECT_INT("MPI_Topo_test(MPI_COMM_WORLD)", status, MPI_UNDEFINED);
  check_sub(cart, rank);
  check_smaller_grids(rank, size);
  check_neighbor_collectives(cart, rank);
  check_errors(cart);
  CHECK_MPI(MPI_Comm_free(&cart));
  finalize_and_report(size);
  return 0;
}

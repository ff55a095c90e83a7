/*
 * dims_create.c - MPI_Dims_create.
 *
 * Checks, on every rank:
 *   1. Known answers, all-zero dims: (12, 2) -> 4x3, (7, 2) -> 7x1,
 *      (24, 3) -> 4x3x2, (1, 3) -> 1x1x1, (16, 2) -> 4x4, (16, 3) -> 4x2x2,
 *      (6, 3) -> 3x2x1, (36, 2) -> 6x6, (8, 3) -> 2x2x2, (100, 2) -> 10x10,
 *      (64, 4) -> 4x4x2x2, (210, 3) -> 7x6x5, (13, 1) -> 13.
 *   2. Nonzero entries are kept: (12, 2, {0, 3}) -> 4x3, (12, 2, {3, 0}) ->
 *      3x4, (30, 3, {0, 5, 0}) -> 3x5x2, (24, 3, {2, 0, 0}) -> 2x4x3,
 *      (6, 2, {2, 3}) -> 2x3 (nothing to fill).
 *   3. With MPI_ERRORS_RETURN: (7, 2, {2, 0}) and (6, 3, {0, 4, 0}) (the
 *      fixed entry does not divide nnodes) and (8, 2, {2, 2}) (nothing to
 *      fill, and the product is not 8) return MPI_ERR_DIMS.
 *   4. Dims_create(N, 2) for the world's size N: the product is N and the
 *      entries do not increase.
 *
 * Prints "dims_create: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "dims_create"
#include "check.h"

#define MAX_DIMS 4

/* dims_in (ndims entries) goes in, expected must come out. */
static void expect_dims(int nnodes, int ndims, const int *dims_in, const int *expected) {
  int dims[MAX_DIMS], k;
  char what[200];
  for (k = 0; k < ndims; k++) dims[k] = dims_in ? dims_in[k] : 0;
  CHECK_MPI(MPI_Dims_create(nnodes, ndims, dims));
  for (k = 0; k < ndims; k++) {
    snprintf(what, sizeof what, "MPI_Dims_create(%d, %d): dims[%d]", nnodes, ndims, k);
    EXPECT_INT(what, dims[k], expected[k]);
  }
}

static void expect_dims_error(int nnodes, int ndims, const int *dims_in) {
  int dims[MAX_DIMS], k, rc, cls = -1;
  for (k = 0; k < ndims; k++) dims[k] = dims_in[k];
  rc = MPI_Dims_create(nnodes, ndims, dims);
  if (rc == MPI_SUCCESS)
    fail("MPI_Dims_create(%d, %d, {%d, ...}) succeeded", nnodes, ndims, dims_in[0]);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  EXPECT_INT("MPI_Dims_create of an impossible grid: error class", cls, MPI_ERR_DIMS);
}

int main(int argc, char **argv) {
  int rank, size;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* 1. Known answers. */
  {
    const int a[] = {4, 3}, b[] = {7, 1}, c[] = {4, 3, 2}, d[] = {1, 1, 1}, e[] = {4, 4},
              f[] = {4, 2, 2}, g[] = {3, 2, 1}, h[] = {6, 6}, i[] = {2, 2, 2}, j[] = {10, 10},
              k[] = {4, 4, 2, 2}, l[] = {7, 6, 5}, m[] = {13};
    expect_dims(12, 2, NULL, a);
    expect_dims(7, 2, NULL, b);
    expect_dims(24, 3, NULL, c);
    expect_dims(1, 3, NULL, d);
    expect_dims(16, 2, NULL, e);
    expect_dims(16, 3, NULL, f);
    expect_dims(6, 3, NULL, g);
    expect_dims(36, 2, NULL, h);
    expect_dims(8, 3, NULL, i);
    expect_dims(100, 2, NULL, j);
    expect_dims(64, 4, NULL, k);
    expect_dims(210, 3, NULL, l);
    expect_dims(13, 1, NULL, m);
  }

  /* 2. Fixed entries. */
  {
    const int in1[] = {0, 3}, out1[] = {4, 3};
    const int in2[] = {3, 0}, out2[] = {3, 4};
    const int in3[] = {0, 5, 0}, out3[] = {3, 5, 2};
    const int in4[] = {2, 0, 0}, out4[] = {2, 4, 3};
    const int in5[] = {2, 3}, out5[] = {2, 3};
    expect_dims(12, 2, in1, out1);
    expect_dims(12, 2, in2, out2);
    expect_dims(30, 3, in3, out3);
    expect_dims(24, 3, in4, out4);
    expect_dims(6, 2, in5, out5);
  }

  /* 3. Impossible grids. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  {
    const int bad1[] = {2, 0}, bad2[] = {2, 2}, bad3[] = {0, 4, 0};
    expect_dims_error(7, 2, bad1);
    expect_dims_error(8, 2, bad2);
    expect_dims_error(6, 3, bad3);
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));

  /* 4. The world's own grid. */
  {
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(size, 2, dims));
    EXPECT_INT("MPI_Dims_create(N, 2): product", dims[0] * dims[1], size);
    if (dims[0] < dims[1]) fail("MPI_Dims_create(%d, 2) gave %d x %d", size, dims[0], dims[1]);
  }

  finalize_and_report(size);
  return 0;
}

/*
 * large_count_collectives.c - the large-count (_c) collectives against a serial
 * reference: MPI_Count counts and MPI_Aint displacements.
 *
 * Checks, on MPI_COMM_WORLD, with small counts (the _c forms must agree with the
 * classic ones): Bcast_c, Gather_c, Gatherv_c, Scatter_c, Scatterv_c,
 * Allgather_c, Allgatherv_c, Alltoall_c, Alltoallv_c, Alltoallw_c, Reduce_c,
 * Allreduce_c (also MPI_IN_PLACE), Reduce_scatter_c, Reduce_scatter_block_c,
 * Scan_c, Exscan_c, each blocking and non-blocking; a derived datatype
 * (a strided vector) through Gather_c; MPI_Op_create_c (a user function taking
 * an MPI_Count length) through Allreduce_c and Reduce_local_c.
 *
 * With WEFT_TEST_LARGE_COUNTS=1 in the environment, also MPI_Bcast_c of
 * 2^31 + 123 MPI_CHARs (a count no int holds, about 2 GiB per rank), checked
 * at sampled places and at its end.
 *
 * Prints "large_count_collectives: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "large_count_collectives"
#include "check.h"

#define N 4

static int rank, size;

static int val(int r, int i, int t) { return (r + 1) * 100 + i * 7 + t * 1000; }
static int cnt(int r) { return r == 1 ? 0 : r + 2; }

/* Runs the blocking form when `request` is NULL, else waits for the non-blocking one. */
static void finish(MPI_Request *request) {
  if (request != NULL) CHECK_MPI(MPI_Wait(request, MPI_STATUS_IGNORE));
}

static void expect_ints(const char *what, const int *got, const int *expected, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != expected[i])
      fail("%s: element %d: got %d, expected %d", what, i, got[i], expected[i]);
}

static void test_data_movement(int t, int nonblocking) {
  MPI_Request req, *r = nonblocking ? &req : NULL;
  int mine[N + 8], all[64 * (N + 8)], expected[64 * (N + 8)];
  const char *mode = nonblocking ? " (non-blocking)" : "";
  char what[80];
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < N; ++i) mine[i] = rank == root ? val(root, i, t) : -1;
    if (r)
      CHECK_MPI(MPI_Ibcast_c(mine, N, MPI_INT, root, MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Bcast_c(mine, N, MPI_INT, root, MPI_COMM_WORLD));
    finish(r);
    for (int i = 0; i < N; ++i) expected[i] = val(root, i, t);
    snprintf(what, sizeof what, "MPI_Bcast_c%s", mode);
    expect_ints(what, mine, expected, N);

    for (int i = 0; i < N; ++i) mine[i] = val(rank, i, t);
    if (r)
      CHECK_MPI(MPI_Igather_c(mine, N, MPI_INT, all, N, MPI_INT, root, MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Gather_c(mine, N, MPI_INT, all, N, MPI_INT, root, MPI_COMM_WORLD));
    finish(r);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < N; ++i) expected[s * N + i] = val(s, i, t);
    snprintf(what, sizeof what, "MPI_Gather_c%s", mode);
    if (rank == root) expect_ints(what, all, expected, N * size);

    for (int s = 0; s < size; ++s)
      for (int i = 0; i < N; ++i) all[s * N + i] = val(s, i, t + 1);
    if (r)
      CHECK_MPI(MPI_Iscatter_c(all, N, MPI_INT, mine, N, MPI_INT, root, MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Scatter_c(all, N, MPI_INT, mine, N, MPI_INT, root, MPI_COMM_WORLD));
    finish(r);
    for (int i = 0; i < N; ++i) expected[i] = val(rank, i, t + 1);
    snprintf(what, sizeof what, "MPI_Scatter_c%s", mode);
    expect_ints(what, mine, expected, N);

    /* v forms: rank s's block of cnt(s) ints at a gap of 2 after the previous. */
    MPI_Count counts[64];
    MPI_Aint displs[64];
    MPI_Aint at = 0;
    for (int s = 0; s < size; ++s) {
      counts[s] = cnt(s);
      displs[s] = at + 2;
      at += cnt(s) + 2;
    }
    for (int i = 0; i < cnt(rank); ++i) mine[i] = val(rank, i, t + 2);
    for (int i = 0; i < at; ++i) all[i] = expected[i] = -9;
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < cnt(s); ++i) expected[displs[s] + i] = val(s, i, t + 2);
    if (r)
      CHECK_MPI(MPI_Igatherv_c(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Gatherv_c(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT, root,
                              MPI_COMM_WORLD));
    finish(r);
    snprintf(what, sizeof what, "MPI_Gatherv_c%s", mode);
    if (rank == root) expect_ints(what, all, expected, (int)at);

    for (int i = 0; i < N + 8; ++i) mine[i] = -9;
    if (r)
      CHECK_MPI(MPI_Iscatterv_c(expected, counts, displs, MPI_INT, mine, cnt(rank), MPI_INT, root,
                                MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Scatterv_c(expected, counts, displs, MPI_INT, mine, cnt(rank), MPI_INT, root,
                               MPI_COMM_WORLD));
    finish(r);
    snprintf(what, sizeof what, "MPI_Scatterv_c%s", mode);
    expect_ints(what, mine, expected + displs[rank], cnt(rank));
    EXPECT_INT("MPI_Scatterv_c: past the block", mine[cnt(rank)], -9);

    if (root != 0) continue;
    /* Allgatherv_c, once per call. */
    for (int i = 0; i < at; ++i) all[i] = -9;
    for (int i = 0; i < cnt(rank); ++i) mine[i] = val(rank, i, t + 2);
    if (r)
      CHECK_MPI(MPI_Iallgatherv_c(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, r));
    else
      CHECK_MPI(
          MPI_Allgatherv_c(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
    finish(r);
    snprintf(what, sizeof what, "MPI_Allgatherv_c%s", mode);
    expect_ints(what, all, expected, (int)at);
  }

  for (int i = 0; i < N; ++i) mine[i] = val(rank, i, t + 3);
  if (r)
    CHECK_MPI(MPI_Iallgather_c(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD, r));
  else
    CHECK_MPI(MPI_Allgather_c(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD));
  finish(r);
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < N; ++i) expected[s * N + i] = val(s, i, t + 3);
  snprintf(what, sizeof what, "MPI_Allgather_c%s", mode);
  expect_ints(what, all, expected, N * size);

  /* Alltoall_c: block for rank d is val(rank * 64 + d, i). */
  int out[64 * N];
  for (int d = 0; d < size; ++d)
    for (int i = 0; i < N; ++i) all[d * N + i] = val(rank * 64 + d, i, t);
  if (r)
    CHECK_MPI(MPI_Ialltoall_c(all, N, MPI_INT, out, N, MPI_INT, MPI_COMM_WORLD, r));
  else
    CHECK_MPI(MPI_Alltoall_c(all, N, MPI_INT, out, N, MPI_INT, MPI_COMM_WORLD));
  finish(r);
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < N; ++i) expected[s * N + i] = val(s * 64 + rank, i, t);
  snprintf(what, sizeof what, "MPI_Alltoall_c%s", mode);
  expect_ints(what, out, expected, N * size);

  /* Alltoallv_c and Alltoallw_c: rank s sends rank d (s + d) % 3 ints, packed in rank order. */
  MPI_Count sc[64], rc[64];
  MPI_Aint sd[64], rd[64], sdb[64], rdb[64];
  MPI_Datatype types[64];
  MPI_Aint st = 0, rt = 0;
  for (int p = 0; p < size; ++p) {
    sc[p] = (rank + p) % 3;
    rc[p] = (p + rank) % 3;
    sd[p] = st;
    rd[p] = rt;
    sdb[p] = st * (MPI_Aint)sizeof(int);
    rdb[p] = rt * (MPI_Aint)sizeof(int);
    types[p] = MPI_INT;
    for (int i = 0; i < sc[p]; ++i) all[st + i] = val(rank * 64 + p, i, t + 4);
    for (int i = 0; i < rc[p]; ++i) expected[rt + i] = val(p * 64 + rank, i, t + 4);
    st += sc[p];
    rt += rc[p];
  }
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < rt; ++i) out[i] = -9;
    if (w == 0 && r)
      CHECK_MPI(MPI_Ialltoallv_c(all, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD, r));
    if (w == 0 && !r)
      CHECK_MPI(MPI_Alltoallv_c(all, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD));
    if (w == 1 && r)
      CHECK_MPI(MPI_Ialltoallw_c(all, sc, sdb, types, out, rc, rdb, types, MPI_COMM_WORLD, r));
    if (w == 1 && !r)
      CHECK_MPI(MPI_Alltoallw_c(all, sc, sdb, types, out, rc, rdb, types, MPI_COMM_WORLD));
    finish(r);
    snprintf(what, sizeof what, "%s%s", w ? "MPI_Alltoallw_c" : "MPI_Alltoallv_c", mode);
    expect_ints(what, out, expected, (int)rt);
  }
}

static void test_reductions(int t, int nonblocking) {
  MPI_Request req, *r = nonblocking ? &req : NULL;
  int in[64 * N], out[64 * N], expected[64 * N];
  const char *mode = nonblocking ? " (non-blocking)" : "";
  char what[80];
  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < N; ++i) in[i] = val(rank, i, t);
    if (r)
      CHECK_MPI(MPI_Ireduce_c(in, out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Reduce_c(in, out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    finish(r);
    for (int i = 0; i < N; ++i) {
      expected[i] = 0;
      for (int s = 0; s < size; ++s) expected[i] += val(s, i, t);
    }
    snprintf(what, sizeof what, "MPI_Reduce_c%s", mode);
    if (rank == root) expect_ints(what, out, expected, N);
  }
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < N; ++i) (in_place ? out : in)[i] = val(rank, i, t + 1);
    const void *send = in_place ? MPI_IN_PLACE : (const void *)in;
    if (r)
      CHECK_MPI(MPI_Iallreduce_c(send, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, r));
    else
      CHECK_MPI(MPI_Allreduce_c(send, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    finish(r);
    for (int i = 0; i < N; ++i) expected[i] = val(size - 1, i, t + 1);
    snprintf(what, sizeof what, "MPI_Allreduce_c%s%s", in_place ? " in place" : "", mode);
    expect_ints(what, out, expected, N);
  }

  MPI_Count counts[64];
  int total = 0, before = 0;
  for (int s = 0; s < size; ++s) {
    counts[s] = cnt(s);
    if (s < rank) before += cnt(s);
    total += cnt(s);
  }
  for (int i = 0; i < total; ++i) in[i] = val(rank, i, t + 2);
  if (r)
    CHECK_MPI(MPI_Ireduce_scatter_c(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r));
  else
    CHECK_MPI(MPI_Reduce_scatter_c(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  finish(r);
  for (int i = 0; i < cnt(rank); ++i) {
    expected[i] = 0;
    for (int s = 0; s < size; ++s) expected[i] += val(s, before + i, t + 2);
  }
  snprintf(what, sizeof what, "MPI_Reduce_scatter_c%s", mode);
  expect_ints(what, out, expected, cnt(rank));

  for (int i = 0; i < N * size; ++i) in[i] = val(rank, i, t + 3);
  if (r)
    CHECK_MPI(MPI_Ireduce_scatter_block_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r));
  else
    CHECK_MPI(MPI_Reduce_scatter_block_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  finish(r);
  for (int i = 0; i < N; ++i) {
    expected[i] = 0;
    for (int s = 0; s < size; ++s) expected[i] += val(s, rank * N + i, t + 3);
  }
  snprintf(what, sizeof what, "MPI_Reduce_scatter_block_c%s", mode);
  expect_ints(what, out, expected, N);

  for (int inclusive = 0; inclusive < 2; ++inclusive) {
    for (int i = 0; i < N; ++i) in[i] = val(rank, i, t + 4);
    if (inclusive && r) CHECK_MPI(MPI_Iscan_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r));
    if (inclusive && !r) CHECK_MPI(MPI_Scan_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (!inclusive && r) CHECK_MPI(MPI_Iexscan_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r));
    if (!inclusive && !r) CHECK_MPI(MPI_Exscan_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    finish(r);
    for (int i = 0; i < N; ++i) {
      expected[i] = 0;
      for (int s = 0; s < rank + inclusive; ++s) expected[i] += val(s, i, t + 4);
    }
    snprintf(what, sizeof what, "%s%s", inclusive ? "MPI_Scan_c" : "MPI_Exscan_c", mode);
    if (inclusive || rank > 0) expect_ints(what, out, expected, N);
  }
}

/* A strided vector type through Gather_c: every other int of 2 * N. */
static void test_derived_type(void) {
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int wide[2 * N], all[64 * N];
  for (int i = 0; i < 2 * N; ++i) wide[i] = i % 2 ? -1 : val(rank, i / 2, 7);
  CHECK_MPI(MPI_Gather_c(wide, 1, strided, all, N, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0)
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < N; ++i)
        EXPECT_INT("MPI_Gather_c (vector type)", all[s * N + i], val(s, i, 7));
  CHECK_MPI(MPI_Type_free(&strided));
}

/* inout = 2 * in + inout: the order of the operands shows. */
static MPI_Count g_last_len;
static void twice_plus_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
  if (*type != MPI_INT) fail("the user function got the wrong datatype");
  g_last_len = *len;
  for (MPI_Count i = 0; i < *len; ++i) ((int *)inout)[i] = 2 * ((int *)in)[i] + ((int *)inout)[i];
}

static void test_user_op_c(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create_c(twice_plus_c, 0, &op));
  int commutes = -1;
  CHECK_MPI(MPI_Op_commutative(op, &commutes));
  EXPECT_INT("MPI_Op_commutative of a non-commutative MPI_Op_create_c op", commutes, 0);
  int a[N], b[N];
  for (int i = 0; i < N; ++i) a[i] = i, b[i] = 10 * i;
  CHECK_MPI(MPI_Reduce_local_c(a, b, N, MPI_INT, op));
  for (int i = 0; i < N; ++i) EXPECT_INT("MPI_Reduce_local_c", b[i], 12 * i);
  EXPECT_INT("MPI_Reduce_local_c: the user function's length", g_last_len, N);
  int in[N], out[N];
  for (int i = 0; i < N; ++i) in[i] = val(rank, i, 9) % 101;
  CHECK_MPI(MPI_Allreduce_c(in, out, N, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; ++i) {
    int e = val(size - 1, i, 9) % 101;
    for (int s = 0; s < size - 1; ++s) e += 2 * (val(s, i, 9) % 101);
    EXPECT_INT("MPI_Allreduce_c with an MPI_Op_create_c op", out[i], e);
  }
  CHECK_MPI(MPI_Op_free(&op));
}

/* More than INT_MAX elements in one broadcast. */
static void test_huge_bcast(void) {
  const MPI_Count count = ((MPI_Count)1 << 31) + 123;
  unsigned char *buf = malloc((size_t)count);
  if (buf == NULL) fail("cannot allocate %lld bytes", (long long)count);
  const int root = size - 1;
  if (rank == root) {
    for (MPI_Count i = 0; i < count; ++i) buf[i] = (unsigned char)(i * 131 + (i >> 20));
  } else {
    memset(buf, 0, (size_t)count);
  }
  CHECK_MPI(MPI_Bcast_c(buf, count, MPI_CHAR, root, MPI_COMM_WORLD));
  for (MPI_Count i = 0; i < count; i += (i < count - 4096 ? 4093 : 1)) {
    if (buf[i] != (unsigned char)(i * 131 + (i >> 20)))
      fail("MPI_Bcast_c of 2^31 + 123: byte %lld", (long long)i);
  }
  free(buf);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > 64) fail("run on at most 64 ranks");
  for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
    test_data_movement(10 * nonblocking, nonblocking);
    test_reductions(10 * nonblocking, nonblocking);
  }
  test_derived_type();
  test_user_op_c();
  const char *large = getenv("WEFT_TEST_LARGE_COUNTS");
  if (large != NULL && strcmp(large, "1") == 0) test_huge_bcast();
  finalize_and_report(size);
  return 0;
}

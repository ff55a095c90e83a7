/*
 * icollectives.c - the non-blocking collectives.
 *
 * Every I-form is started before any is waited for, so they are all in flight at once:
 * Ibarrier, Ibcast, Ireduce and Iallreduce (on int, which the core reduces, and on short
 * and MPI_MAXLOC, which are combined after the data arrives), Igather, Iscatter,
 * Iallgather, Ialltoall, Igatherv, Iallgatherv, Ialltoallv, Ireduce_scatter_block,
 * Iscan and Iexscan. After MPI_Waitall each result is checked against a serial
 * reference. A second round completes the requests one by one with MPI_Test loops, in
 * reverse order.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "icollectives"
#include "check.h"

static int rank, size;

enum { N = 8, K = 3 };

static void round_trip(int by_test) {
  MPI_Request req[16];
  int nreq = 0;
  int root = size - 1;

  int bc[N], red_in[N], red_out[N], all_in[N], all_out[N];
  short s_in[N], s_out[N];
  struct {
    int v, i;
  } loc_in, loc_out;
  int *gat = malloc(sizeof(int) * K * size), gat_in[K];
  int *sca = malloc(sizeof(int) * K * size), sca_out[K];
  int *ag = malloc(sizeof(int) * K * size);
  int *a2a_in = malloc(sizeof(int) * size), *a2a_out = malloc(sizeof(int) * size);
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1;
    displs[r] = total;
    total += r + 1;
  }
  int *gv = malloc(sizeof(int) * total), *agv = malloc(sizeof(int) * total);
  int *gv_in = malloc(sizeof(int) * (rank + 1));
  int *a2av_in = malloc(sizeof(int) * size), *a2av_out = malloc(sizeof(int) * size);
  int *ones = malloc(sizeof(int) * size), *seq = malloc(sizeof(int) * size);
  int *rsb_in = malloc(sizeof(int) * size), rsb_out = -1, scan_out = -1, exscan_out = -7;
  int mine = rank + 1;

  for (int i = 0; i < N; ++i) {
    bc[i] = rank == 0 ? 100 + i : -1;
    red_in[i] = rank * 10 + i;
    all_in[i] = rank + i;
    s_in[i] = (short)(rank - i);
  }
  loc_in.v = rank % 2;
  loc_in.i = rank;
  for (int k = 0; k < K; ++k) gat_in[k] = rank * 100 + k;
  for (int j = 0; j < K * size; ++j) sca[j] = rank == root ? 7 * j : -1;
  for (int j = 0; j < size; ++j) {
    a2a_in[j] = rank * 1000 + j;
    a2av_in[j] = rank * 1000 + j;
    ones[j] = 1;
    seq[j] = j;
    rsb_in[j] = rank + j;
  }
  for (int k = 0; k <= rank; ++k) gv_in[k] = rank * 10 + k;

  MPI_Ibarrier(MPI_COMM_WORLD, &req[nreq++]);
  MPI_Ibcast(bc, N, MPI_INT, 0, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Ireduce(red_in, red_out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iallreduce(all_in, all_out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iallreduce(s_in, s_out, N, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iallreduce(&loc_in, &loc_out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Igather(gat_in, K, MPI_INT, gat, K, MPI_INT, root, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iscatter(sca, K, MPI_INT, sca_out, K, MPI_INT, root, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iallgather(gat_in, K, MPI_INT, ag, K, MPI_INT, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Igatherv(gv_in, rank + 1, MPI_INT, gv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD,
               &req[nreq++]);
  MPI_Iallgatherv(gv_in, rank + 1, MPI_INT, agv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                  &req[nreq++]);
  MPI_Ialltoallv(a2av_in, ones, seq, MPI_INT, a2av_out, ones, seq, MPI_INT, MPI_COMM_WORLD,
                 &req[nreq++]);
  MPI_Ireduce_scatter_block(rsb_in, &rsb_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iscan(&mine, &scan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Iexscan(&mine, &exscan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]);

  if (!by_test) {
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  } else {
    for (int i = nreq - 1; i >= 0; --i) {
      int flag = 0;
      while (!flag) MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
      EXPECT_INT("request after MPI_Test", req[i] == MPI_REQUEST_NULL, 1);
    }
  }

  for (int i = 0; i < N; ++i) {
    EXPECT_INT("Ibcast", bc[i], 100 + i);
    if (rank == root) EXPECT_INT("Ireduce", red_out[i], 10 * size * (size - 1) / 2 + size * i);
    EXPECT_INT("Iallreduce MAX", all_out[i], size - 1 + i);
    EXPECT_INT("Iallreduce SUM short", s_out[i], size * (size - 1) / 2 - size * i);
  }
  EXPECT_INT("Iallreduce MAXLOC value", loc_out.v, size > 1 ? 1 : 0);
  EXPECT_INT("Iallreduce MAXLOC index", loc_out.i, size > 1 ? 1 : 0);
  if (rank == root) {
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < K; ++k) EXPECT_INT("Igather", gat[r * K + k], r * 100 + k);
  }
  for (int k = 0; k < K; ++k) EXPECT_INT("Iscatter", sca_out[k], 7 * (rank * K + k));
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < K; ++k) EXPECT_INT("Iallgather", ag[r * K + k], r * 100 + k);
  for (int j = 0; j < size; ++j) {
    EXPECT_INT("Ialltoall", a2a_out[j], j * 1000 + rank);
    EXPECT_INT("Ialltoallv", a2av_out[j], j * 1000 + rank);
  }
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k <= r; ++k) {
      if (rank == 0) EXPECT_INT("Igatherv", gv[displs[r] + k], r * 10 + k);
      EXPECT_INT("Iallgatherv", agv[displs[r] + k], r * 10 + k);
    }
  }
  EXPECT_INT("Ireduce_scatter_block", rsb_out, size * (size - 1) / 2 + size * rank);
  EXPECT_INT("Iscan", scan_out, (rank + 1) * (rank + 2) / 2);
  if (rank > 0) EXPECT_INT("Iexscan", exscan_out, rank * (rank + 1) / 2);

  free(gat);
  free(sca);
  free(ag);
  free(a2a_in);
  free(a2a_out);
  free(counts);
  free(displs);
  free(gv);
  free(agv);
  free(gv_in);
  free(a2av_in);
  free(a2av_out);
  free(ones);
  free(seq);
  free(rsb_in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  g_rank = rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  round_trip(0);
  round_trip(1);
  MPI_Finalize();
  if (rank == 0) printf(PROGRAM ": OK (%d ranks)\n", size);
  return 0;
}

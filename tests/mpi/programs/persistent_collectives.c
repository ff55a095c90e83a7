/*
 * persistent_collectives.c - MPI-4's persistent collectives against a serial
 * reference: each operation is initialised once and started three times, the
 * send data changed between starts (the operation must use the buffers' data
 * at each start, not at init), and the request stays allocated and inactive
 * after each completion until MPI_Request_free.
 *
 * Checks, on MPI_COMM_WORLD, every rank as root where there is one:
 *   - Barrier_init, Bcast_init (MPI_INT, and a strided vector type), Gather_init,
 *     Scatter_init, Allgather_init, Alltoall_init, their v forms with uneven counts
 *     (some zero), Alltoallw_init, Reduce_init, Allreduce_init (also MPI_IN_PLACE,
 *     and a user-defined operation), Reduce_scatter_init, Reduce_scatter_block_init,
 *     Scan_init and Exscan_init.
 *   - The count arrays are bound at init: the program's are changed after it.
 *   - MPI_Startall over a mixture: two persistent collectives and a persistent
 *     send and receive around a ring, completed with MPI_Waitall; MPI_Test on an
 *     inactive request; MPI_Request_free on inactive requests.
 *   - The large-count forms Allreduce_init_c and Allgatherv_init_c.
 *
 * Prints "persistent_collectives: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "persistent_collectives"
#include "check.h"

#define STARTS 3
#define N 5

static int rank, size;

/* Element i of what rank r contributes at start t. */
static int val(int r, int i, int t) { return (r + 1) * 100 + i * 7 + t * 1000; }

/* Starts the request, waits for it, and checks that it stays allocated and inactive. */
static void run_once(MPI_Request *request) {
  CHECK_MPI(MPI_Start(request));
  CHECK_MPI(MPI_Wait(request, MPI_STATUS_IGNORE));
  if (*request == MPI_REQUEST_NULL) fail("a completed persistent request became MPI_REQUEST_NULL");
  int flag = 0;
  CHECK_MPI(MPI_Test(request, &flag, MPI_STATUS_IGNORE));
  EXPECT_INT("MPI_Test on an inactive persistent request: flag", flag, 1);
}

static void expect_ints(const char *what, const int *got, const int *expected, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != expected[i])
      fail("%s: element %d: got %d, expected %d", what, i, got[i], expected[i]);
  }
}

static void test_barrier_bcast(void) {
  MPI_Request request;
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) run_once(&request);
  CHECK_MPI(MPI_Request_free(&request));
  EXPECT_INT("MPI_Request_free sets MPI_REQUEST_NULL", request == MPI_REQUEST_NULL, 1);

  int buf[N], expected[N];
  for (int root = 0; root < size; ++root) {
    CHECK_MPI(MPI_Bcast_init(buf, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < N; ++i) {
        buf[i] = rank == root ? val(root, i, t) : -1;
        expected[i] = val(root, i, t);
      }
      run_once(&request);
      expect_ints("MPI_Bcast_init", buf, expected, N);
    }
    CHECK_MPI(MPI_Request_free(&request));
  }

  /* A strided vector: every other int of 2 * N. */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int wide[2 * N];
  CHECK_MPI(MPI_Bcast_init(wide, 1, strided, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  CHECK_MPI(MPI_Type_free(&strided)); /* the request keeps what it needs */
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < 2 * N; ++i) wide[i] = rank == 0 || i % 2 ? val(0, i, t) : -1;
    run_once(&request);
    for (int i = 0; i < 2 * N; ++i)
      EXPECT_INT("MPI_Bcast_init (vector type)", wide[i], val(0, i, t));
  }
  CHECK_MPI(MPI_Request_free(&request));
}

static void test_gather_scatter(void) {
  int *all = xmalloc(sizeof(int) * N * size), *expected = xmalloc(sizeof(int) * N * size);
  int mine[N], mine_expected[N];
  MPI_Request request;
  for (int root = 0; root < size; ++root) {
    CHECK_MPI(MPI_Gather_init(mine, N, MPI_INT, all, N, MPI_INT, root, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &request));
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < N; ++i) mine[i] = val(rank, i, t);
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < N; ++i) expected[r * N + i] = val(r, i, t);
      run_once(&request);
      if (rank == root) expect_ints("MPI_Gather_init", all, expected, N * size);
    }
    CHECK_MPI(MPI_Request_free(&request));

    CHECK_MPI(MPI_Scatter_init(all, N, MPI_INT, mine, N, MPI_INT, root, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &request));
    for (int t = 0; t < STARTS; ++t) {
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < N; ++i) all[r * N + i] = val(r, i, t + 10);
      for (int i = 0; i < N; ++i) mine_expected[i] = val(rank, i, t + 10);
      run_once(&request);
      expect_ints("MPI_Scatter_init", mine, mine_expected, N);
    }
    CHECK_MPI(MPI_Request_free(&request));
  }

  CHECK_MPI(MPI_Allgather_init(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < N; ++i) mine[i] = val(rank, i, t);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < N; ++i) expected[r * N + i] = val(r, i, t);
    run_once(&request);
    expect_ints("MPI_Allgather_init", all, expected, N * size);
  }
  CHECK_MPI(MPI_Request_free(&request));

  int *out = xmalloc(sizeof(int) * N * size);
  CHECK_MPI(
      MPI_Alltoall_init(all, N, MPI_INT, out, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    /* Block for rank d: val(rank * size + d, i, t). */
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < N; ++i) all[d * N + i] = val(rank * size + d, i, t);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < N; ++i) expected[s * N + i] = val(s * size + rank, i, t);
    run_once(&request);
    expect_ints("MPI_Alltoall_init", out, expected, N * size);
  }
  CHECK_MPI(MPI_Request_free(&request));
  free(all), free(expected), free(out);
}

/* Uneven counts for the v forms: rank r's block has cnt(r) ints (zero for r = 1). */
static int cnt(int r) { return r == 1 ? 0 : r + 1; }

static void test_v_forms(void) {
  int *counts = xmalloc(sizeof(int) * size), *displs = xmalloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = cnt(r);
    displs[r] = total + 1; /* a gap of one before each block */
    total += cnt(r) + 1;
  }
  int *all = xmalloc(sizeof(int) * total), *expected = xmalloc(sizeof(int) * total);
  int mine[8], mine_expected[8];
  MPI_Request request;
  for (int root = 0; root < size; ++root) {
    CHECK_MPI(MPI_Gatherv_init(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    for (int r = 0; r < size; ++r) counts[r] = -5; /* bound at init: these must not matter */
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < total; ++i) all[i] = expected[i] = -1;
      for (int i = 0; i < cnt(rank); ++i) mine[i] = val(rank, i, t);
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < cnt(r); ++i) expected[displs[r] + i] = val(r, i, t);
      run_once(&request);
      if (rank == root) expect_ints("MPI_Gatherv_init", all, expected, total);
    }
    CHECK_MPI(MPI_Request_free(&request));
    for (int r = 0; r < size; ++r) counts[r] = cnt(r);

    CHECK_MPI(MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, cnt(rank), MPI_INT, root,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    for (int t = 0; t < STARTS; ++t) {
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < cnt(r); ++i) all[displs[r] + i] = val(r, i, t + 20);
      for (int i = 0; i < cnt(rank); ++i) mine_expected[i] = val(rank, i, t + 20);
      run_once(&request);
      expect_ints("MPI_Scatterv_init", mine, mine_expected, cnt(rank));
    }
    CHECK_MPI(MPI_Request_free(&request));
  }

  CHECK_MPI(MPI_Allgatherv_init(mine, cnt(rank), MPI_INT, all, counts, displs, MPI_INT,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < total; ++i) all[i] = expected[i] = -1;
    for (int i = 0; i < cnt(rank); ++i) mine[i] = val(rank, i, t);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < cnt(r); ++i) expected[displs[r] + i] = val(r, i, t);
    run_once(&request);
    expect_ints("MPI_Allgatherv_init", all, expected, total);
  }
  CHECK_MPI(MPI_Request_free(&request));

  /* Alltoallv and Alltoallw: rank s sends rank d (s + d) % 3 ints. */
  int *sc = xmalloc(sizeof(int) * size), *sd = xmalloc(sizeof(int) * size);
  int *rc = xmalloc(sizeof(int) * size), *rd = xmalloc(sizeof(int) * size);
  int *sdb = xmalloc(sizeof(int) * size), *rdb = xmalloc(sizeof(int) * size);
  MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * size);
  int stotal = 0, rtotal = 0;
  for (int p = 0; p < size; ++p) {
    sc[p] = (rank + p) % 3;
    rc[p] = (p + rank) % 3;
    sd[p] = stotal;
    rd[p] = rtotal;
    sdb[p] = stotal * (int)sizeof(int);
    rdb[p] = rtotal * (int)sizeof(int);
    types[p] = MPI_INT;
    stotal += sc[p];
    rtotal += rc[p];
  }
  int *sbuf = xmalloc(sizeof(int) * (stotal + 1)), *rbuf = xmalloc(sizeof(int) * (rtotal + 1));
  int *rexp = xmalloc(sizeof(int) * (rtotal + 1));
  for (int w = 0; w < 2; ++w) {
    if (w == 0) {
      CHECK_MPI(MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &request));
    } else {
      CHECK_MPI(MPI_Alltoallw_init(sbuf, sc, sdb, types, rbuf, rc, rdb, types, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &request));
    }
    for (int t = 0; t < STARTS; ++t) {
      for (int p = 0; p < size; ++p) {
        for (int i = 0; i < sc[p]; ++i) sbuf[sd[p] + i] = val(rank * size + p, i, t + w);
        for (int i = 0; i < rc[p]; ++i) rexp[rd[p] + i] = val(p * size + rank, i, t + w);
      }
      run_once(&request);
      expect_ints(w ? "MPI_Alltoallw_init" : "MPI_Alltoallv_init", rbuf, rexp, rtotal);
    }
    CHECK_MPI(MPI_Request_free(&request));
  }
  free(counts), free(displs), free(all), free(expected), free(sc), free(sd), free(rc), free(rd);
  free(sdb), free(rdb), free(types), free(sbuf), free(rbuf), free(rexp);
}

/* A user-defined operation: inout = 2 * in + inout, which is neither commutative nor
 * associative-free of order, so the rank order must be right. */
static void twice_plus(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] = 2 * ((int *)in)[i] + ((int *)inout)[i];
}

static void test_reductions(void) {
  int in[N], out[N], expected[N];
  MPI_Request request;
  for (int root = 0; root < size; ++root) {
    CHECK_MPI(MPI_Reduce_init(in, out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &request));
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < N; ++i) {
        in[i] = val(rank, i, t);
        expected[i] = 0;
        for (int r = 0; r < size; ++r) expected[i] += val(r, i, t);
      }
      run_once(&request);
      if (rank == root) expect_ints("MPI_Reduce_init", out, expected, N);
    }
    CHECK_MPI(MPI_Request_free(&request));
  }

  /* In place; then a user op (x0 op (x1 op ... x(n-1)) = sum of 2 * x_r for r < n-1 plus x_{n-1}).
   */
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(twice_plus, 0, &op));
  for (int kind = 0; kind < 2; ++kind) {
    if (kind == 0) {
      CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &request));
    } else {
      CHECK_MPI(
          MPI_Allreduce_init(in, out, N, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    }
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < N; ++i) {
        (kind == 0 ? out : in)[i] = val(rank, i, t) % 97;
        expected[i] = kind == 0 ? 0 : val(size - 1, i, t) % 97;
        for (int r = 0; r < size; ++r) {
          int v = val(r, i, t) % 97;
          if (kind == 0 && v > expected[i]) expected[i] = v;
          if (kind == 1 && r < size - 1) expected[i] += 2 * v;
        }
      }
      run_once(&request);
      expect_ints(kind ? "MPI_Allreduce_init (user op)" : "MPI_Allreduce_init (in place)", out,
                  expected, N);
    }
    CHECK_MPI(MPI_Request_free(&request));
  }
  CHECK_MPI(MPI_Op_free(&op));

  /* Reduce_scatter with rank r receiving cnt(r) sums, and the block form with N each. */
  int *counts = xmalloc(sizeof(int) * size), total = 0;
  for (int r = 0; r < size; ++r) total += counts[r] = cnt(r);
  int *big = xmalloc(sizeof(int) * (N * size + total + 1));
  int before = 0;
  for (int r = 0; r < rank; ++r) before += cnt(r);
  CHECK_MPI(MPI_Reduce_scatter_init(big, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < total; ++i) big[i] = val(rank, i, t);
    for (int i = 0; i < cnt(rank); ++i) {
      expected[i] = 0;
      for (int r = 0; r < size; ++r) expected[i] += val(r, before + i, t);
    }
    run_once(&request);
    expect_ints("MPI_Reduce_scatter_init", out, expected, cnt(rank));
  }
  CHECK_MPI(MPI_Request_free(&request));

  CHECK_MPI(MPI_Reduce_scatter_block_init(big, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < N * size; ++i) big[i] = val(rank, i, t);
    for (int i = 0; i < N; ++i) {
      expected[i] = 0;
      for (int r = 0; r < size; ++r) expected[i] += val(r, rank * N + i, t);
    }
    run_once(&request);
    expect_ints("MPI_Reduce_scatter_block_init", out, expected, N);
  }
  CHECK_MPI(MPI_Request_free(&request));

  for (int inclusive = 0; inclusive < 2; ++inclusive) {
    if (inclusive) {
      CHECK_MPI(
          MPI_Scan_init(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    } else {
      CHECK_MPI(
          MPI_Exscan_init(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
    }
    for (int t = 0; t < STARTS; ++t) {
      for (int i = 0; i < N; ++i) {
        in[i] = val(rank, i, t);
        expected[i] = 0;
        for (int r = 0; r < rank + inclusive; ++r) expected[i] += val(r, i, t);
      }
      run_once(&request);
      if (inclusive || rank > 0) {
        expect_ints(inclusive ? "MPI_Scan_init" : "MPI_Exscan_init", out, expected, N);
      }
    }
    CHECK_MPI(MPI_Request_free(&request));
  }
  free(counts), free(big);
}

/* MPI_Startall over two collectives and a persistent send and receive around a ring. */
static void test_startall_mixture(void) {
  int sum_in = rank + 1, sum_out = 0, bcast = 0, sent = 0, received = -1;
  MPI_Request requests[4];
  CHECK_MPI(MPI_Allreduce_init(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &requests[0]));
  CHECK_MPI(MPI_Recv_init(&received, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD,
                          &requests[1]));
  CHECK_MPI(MPI_Send_init(&sent, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &requests[2]));
  CHECK_MPI(
      MPI_Bcast_init(&bcast, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &requests[3]));
  for (int t = 0; t < STARTS; ++t) {
    sum_in = rank + 1 + t;
    sent = rank * 10 + t;
    bcast = rank == size - 1 ? 1234 + t : -1;
    CHECK_MPI(MPI_Startall(4, requests));
    CHECK_MPI(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE));
    EXPECT_INT("MPI_Startall: the allreduce", sum_out, size * (size + 1) / 2 + size * t);
    EXPECT_INT("MPI_Startall: the receive", received, ((rank + size - 1) % size) * 10 + t);
    EXPECT_INT("MPI_Startall: the broadcast", bcast, 1234 + t);
  }
  for (int i = 0; i < 4; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) fail("request %d became MPI_REQUEST_NULL", i);
    CHECK_MPI(MPI_Request_free(&requests[i]));
  }
}

static void test_large_count_forms(void) {
  MPI_Count counts[64];
  MPI_Aint displs[64];
  int in[N] = {0}, out[N], all[64 * 3];
  MPI_Request request;
  MPI_Count total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = cnt(r);
    displs[r] = (MPI_Aint)total;
    total += cnt(r);
  }
  CHECK_MPI(
      MPI_Allreduce_init_c(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < N; ++i) in[i] = val(rank, i, t);
    run_once(&request);
    for (int i = 0; i < N; ++i) {
      int e = 0;
      for (int r = 0; r < size; ++r) e += val(r, i, t);
      EXPECT_INT("MPI_Allreduce_init_c", out[i], e);
    }
  }
  CHECK_MPI(MPI_Request_free(&request));
  CHECK_MPI(MPI_Allgatherv_init_c(in, cnt(rank), MPI_INT, all, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &request));
  for (int t = 0; t < STARTS; ++t) {
    for (int i = 0; i < cnt(rank); ++i) in[i] = val(rank, i, t);
    run_once(&request);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < cnt(r); ++i)
        EXPECT_INT("MPI_Allgatherv_init_c", all[displs[r] + i], val(r, i, t));
  }
  CHECK_MPI(MPI_Request_free(&request));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > 64) fail("run on at most 64 ranks");
  test_barrier_bcast();
  test_gather_scatter();
  test_v_forms();
  test_reductions();
  test_startall_mixture();
  test_large_count_forms();
  finalize_and_report(size);
  return 0;
}

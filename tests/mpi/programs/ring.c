/*
 * ring.c - a token passed around the ring of MPI_COMM_WORLD, three ways.
 *
 * Checks:
 *   1. Blocking ring: rank 0 starts a token, every rank receives it from
 *      rank-1 with MPI_Recv, checks it, adds one and passes it to rank+1 with
 *      MPI_Send; NLAPS laps, each lap with its own tag. Rank r (r > 0) must see
 *      lap*size + r; rank 0 must get (lap+1)*size back. Status source and tag
 *      and MPI_Get_count are checked. With one rank, rank 0 passes the token
 *      to itself with MPI_Isend + MPI_Recv + MPI_Wait.
 *   2. The same sequential token with MPI_Isend / MPI_Irecv: rank 0 posts the
 *      receive for the returning token and the send together and completes
 *      both with MPI_Waitall; the other ranks MPI_Wait on the receive, then
 *      forward with MPI_Isend + MPI_Wait.
 *   3. Simultaneous shift with MPI_Isend / MPI_Irecv / MPI_Waitall: every rank
 *      launches its own token (an array, 1 and 50000 ints), and at every step
 *      all tokens move one hop; after `step` hops the token held by rank r
 *      came from rank (r - step) mod size and carries hop count `step`.
 *      NLAPS*size steps bring every token home.
 *   4. MPI_Sendrecv shifts by every distance 0..size-1 in both directions,
 *      with a small and a large (200000 doubles) message, checking values,
 *      status.MPI_SOURCE/MPI_TAG and MPI_Get_count.
 *
 * Prints "ring: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "ring"
#include "check.h"

#define NLAPS 5
#define TAG_BLOCKING 1000    /* + lap */
#define TAG_NONBLOCKING 2000 /* + lap */
#define TAG_SHIFT 3000
#define TAG_SENDRECV 4000 /* + distance */

static int rank, size;

/* 1. Sequential token with MPI_Send / MPI_Recv. */
static void blocking_ring(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int lap;
  for (lap = 0; lap < NLAPS; lap++) {
    int tag = TAG_BLOCKING + lap;
    int in = -1;
    MPI_Status st;
    char what[100];
    if (rank == 0) {
      int out = lap * size + 1;
      if (size == 1) {
        MPI_Request req;
        CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      } else {
        CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
      }
      snprintf(what, sizeof what, "blocking ring lap %d: token back at rank 0", lap);
      EXPECT_INT(what, in, (lap + 1) * size);
    } else {
      CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
      snprintf(what, sizeof what, "blocking ring lap %d: token", lap);
      EXPECT_INT(what, in, lap * size + rank);
      in++;
      CHECK_MPI(MPI_Send(&in, 1, MPI_INT, next, tag, MPI_COMM_WORLD));
    }
    expect_status(what, &st, prev, tag, MPI_INT, 1);
  }
}

/* 2. Sequential token with MPI_Isend / MPI_Irecv. */
static void nonblocking_ring(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int lap;
  for (lap = 0; lap < NLAPS; lap++) {
    int tag = TAG_NONBLOCKING + lap;
    int in = -1, out;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    char what[100];
    if (rank == 0) {
      out = lap * size + 1;
      CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &reqs[0]));
      CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &reqs[1]));
      CHECK_MPI(MPI_Waitall(2, reqs, sts));
      if (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL)
        fail("MPI_Waitall did not set the requests to MPI_REQUEST_NULL");
      snprintf(what, sizeof what, "non-blocking ring lap %d: token back at rank 0", lap);
      EXPECT_INT(what, in, (lap + 1) * size);
    } else {
      CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &reqs[0]));
      CHECK_MPI(MPI_Wait(&reqs[0], &sts[0]));
      snprintf(what, sizeof what, "non-blocking ring lap %d: token", lap);
      EXPECT_INT(what, in, lap * size + rank);
      out = in + 1;
      CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, tag, MPI_COMM_WORLD, &reqs[1]));
      CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    }
    expect_status(what, &sts[0], prev, tag, MPI_INT, 1);
  }
}

/* 3. Every rank's token moves at once. Token element i = origin * 1000000 +
 * hops * 10 + (i % 10). */
static int token_value(int origin, int hops, int i) {
  return origin * 1000000 + hops * 10 + i % 10;
}

static void shift_ring(int count) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *cur = malloc((size_t)count * sizeof *cur);
  int *in = malloc((size_t)count * sizeof *in);
  int steps = NLAPS * size, step, i;
  if (cur == NULL || in == NULL) fail("out of memory");
  for (i = 0; i < count; i++) cur[i] = token_value(rank, 0, i);
  for (step = 1; step <= steps; step++) {
    MPI_Request reqs[2];
    MPI_Status sts[2];
    int origin = ((rank - step) % size + size) % size;
    char what[120];
    /* Hop: send my token with its hop count incremented. */
    for (i = 0; i < count; i++) cur[i] += 10;
    for (i = 0; i < count; i++) in[i] = -1;
    CHECK_MPI(MPI_Irecv(in, count, MPI_INT, prev, TAG_SHIFT, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(cur, count, MPI_INT, next, TAG_SHIFT, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Waitall(2, reqs, sts));
    for (i = 0; i < count; i++) {
      int exp = token_value(origin, step, i);
      if (in[i] != exp)
        fail("shift ring (%d ints) step %d element %d: got %d, expected %d", count, step, i, in[i],
             exp);
    }
    snprintf(what, sizeof what, "shift ring (%d ints) step %d", count, step);
    expect_status(what, &sts[0], prev, TAG_SHIFT, MPI_INT, count);
    memcpy(cur, in, (size_t)count * sizeof *cur);
  }
  /* Home again. */
  for (i = 0; i < count; i++) {
    int exp = token_value(rank, steps, i);
    if (cur[i] != exp)
      fail(
          "shift ring (%d ints): own token element %d after %d hops: got "
          "%d, expected %d",
          count, i, steps, cur[i], exp);
  }
  free(cur);
  free(in);
}

/* 4. MPI_Sendrecv shifts by every distance, both directions. */
static double sr_value(int origin, int i) { return origin * 1000.0 + i * 0.5; }

static void sendrecv_shifts(int count) {
  double *out = malloc((size_t)count * sizeof *out);
  double *in = malloc((size_t)count * sizeof *in);
  int d, dir, i;
  if (out == NULL || in == NULL) fail("out of memory");
  for (i = 0; i < count; i++) out[i] = sr_value(rank, i);
  for (dir = -1; dir <= 1; dir += 2) {
    for (d = 0; d < size; d++) {
      int dest = ((rank + dir * d) % size + size) % size;
      int src = ((rank - dir * d) % size + size) % size;
      int tag = TAG_SENDRECV + d;
      MPI_Status st;
      char what[120];
      for (i = 0; i < count; i++) in[i] = -1.0;
      CHECK_MPI(MPI_Sendrecv(out, count, MPI_DOUBLE, dest, tag, in, count, MPI_DOUBLE, src, tag,
                             MPI_COMM_WORLD, &st));
      for (i = 0; i < count; i++) {
        if (in[i] != sr_value(src, i))
          fail(
              "sendrecv shift by %d (%d doubles) element %d: got %g, "
              "expected %g",
              dir * d, count, i, in[i], sr_value(src, i));
      }
      snprintf(what, sizeof what, "sendrecv shift by %d (%d doubles)", dir * d, count);
      expect_status(what, &st, src, tag, MPI_DOUBLE, count);
      for (i = 0; i < count; i++) {
        if (out[i] != sr_value(rank, i))
          fail(
              "sendrecv shift by %d: send buffer element %d changed: "
              "got %g, expected %g",
              dir * d, i, out[i], sr_value(rank, i));
      }
    }
  }
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  blocking_ring();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  nonblocking_ring();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  shift_ring(1);
  shift_ring(50000);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  sendrecv_shifts(3);
  sendrecv_shifts(200000);

  finalize_and_report(size);
  return 0;
}

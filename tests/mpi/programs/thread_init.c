/*
 * thread_init.c - MPI_Init_thread and MPI_Query_thread.
 *
 * Checks:
 *   - MPI_Initialized is 0 before MPI_Init_thread and 1 after.
 *   - The thread levels are ordered: MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED
 *     < MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE.
 *   - MPI_Init_thread(MPI_THREAD_MULTIPLE) returns a provided level that is
 *     one of those four (so >= MPI_THREAD_SINGLE); a lower level than asked
 *     for is allowed. MPI_Query_thread reports the same level.
 *   - Every rank agrees on the provided level (MPI_Allreduce MIN and MAX).
 *   - If MPI_THREAD_MULTIPLE is provided, NTHREADS threads per rank do
 *     ROUNDS MPI_Sendrecv ring shifts at the same time on MPI_COMM_WORLD,
 *     each thread with its own tag, and check every value: a library that
 *     claims MPI_THREAD_MULTIPLE must keep them apart. Built against
 *     pthreads, which glibc 2.34 and later have in libc itself.
 *
 * Prints "thread_init: OK (N ranks)" from rank 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "thread_init"
#include "check.h"

#define NTHREADS 4
#define ROUNDS 200
#define TAG_THREAD 500 /* + thread index */

static int rank, size;

static const char *level_name(int l) {
  if (l == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (l == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (l == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (l == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "not a thread level";
}

static void *shifter(void *arg) {
  int t = *(const int *)arg;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int round;
  for (round = 0; round < ROUNDS; round++) {
    int out[2] = {rank * 1000000 + t * 10000 + round, t};
    int in[2] = {-1, -1};
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, 2, MPI_INT, next, TAG_THREAD + t, in, 2, MPI_INT, prev,
                           TAG_THREAD + t, MPI_COMM_WORLD, &st));
    if (in[0] != prev * 1000000 + t * 10000 + round || in[1] != t)
      fail("thread %d round %d: got {%d, %d}, expected {%d, %d}", t, round, in[0], in[1],
           prev * 1000000 + t * 10000 + round, t);
    if (st.MPI_SOURCE != prev || st.MPI_TAG != TAG_THREAD + t)
      fail("thread %d round %d: status source/tag got %d/%d, expected %d/%d", t, round,
           st.MPI_SOURCE, st.MPI_TAG, prev, TAG_THREAD + t);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int flag = -1, provided = -12345, queried = -12345, lo = -1, hi = -1;

  CHECK_MPI(MPI_Initialized(&flag));
  EXPECT_INT("MPI_Initialized before MPI_Init_thread", flag, 0);

  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  flag = -1;
  CHECK_MPI(MPI_Initialized(&flag));
  EXPECT_INT("MPI_Initialized after MPI_Init_thread", flag, 1);

  if (!(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
        MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE))
    fail(
        "thread levels: got SINGLE=%d FUNNELED=%d SERIALIZED=%d MULTIPLE=%d, "
        "expected increasing values",
        MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE);

  if (provided != MPI_THREAD_SINGLE && provided != MPI_THREAD_FUNNELED &&
      provided != MPI_THREAD_SERIALIZED && provided != MPI_THREAD_MULTIPLE)
    fail(
        "MPI_Init_thread provided: got %d, expected one of the MPI_THREAD_* "
        "levels (%d..%d)",
        provided, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE);
  if (provided < MPI_THREAD_SINGLE)
    fail("MPI_Init_thread provided: got %d, expected >= MPI_THREAD_SINGLE (%d)", provided,
         MPI_THREAD_SINGLE);

  CHECK_MPI(MPI_Query_thread(&queried));
  if (queried != provided)
    fail("MPI_Query_thread: got %d (%s), expected the provided level %d (%s)", queried,
         level_name(queried), provided, level_name(provided));

  CHECK_MPI(MPI_Allreduce(&provided, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&provided, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (lo != hi) fail("provided thread level differs between ranks: from %d to %d", lo, hi);

  if (provided == MPI_THREAD_MULTIPLE) {
    pthread_t th[NTHREADS];
    int ids[NTHREADS], t, rc;
    for (t = 0; t < NTHREADS; t++) {
      ids[t] = t;
      rc = pthread_create(&th[t], NULL, shifter, &ids[t]);
      if (rc != 0) fail("pthread_create: got %d (%s), expected 0", rc, strerror(rc));
    }
    for (t = 0; t < NTHREADS; t++) {
      rc = pthread_join(th[t], NULL);
      if (rc != 0) fail("pthread_join: got %d (%s), expected 0", rc, strerror(rc));
    }
  }

  finalize_and_report(size);
  return 0;
}

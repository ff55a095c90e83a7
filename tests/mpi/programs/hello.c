/*
 * hello.c - start-up, environment queries and a first point-to-point exchange.
 *
 * Checks:
 *   - MPI_Initialized and MPI_Finalized report 0 before MPI_Init, 1/0 between
 *     MPI_Init and MPI_Finalize, and 1/1 after MPI_Finalize.
 *   - MPI_Comm_rank / MPI_Comm_size on MPI_COMM_WORLD: 0 <= rank < size, and
 *     every rank agrees on the size.
 *   - MPI_Get_processor_name: non-empty, NUL-terminated, resultlen equals
 *     strlen(name) and is below MPI_MAX_PROCESSOR_NAME.
 *   - MPI_Get_version reports version >= 3 (subversion >= 0);
 *     MPI_Get_library_version gives a non-empty NUL-terminated string whose
 *     length is resultlen (or resultlen - 1: Open MPI counts the NUL), below
 *     MPI_MAX_LIBRARY_VERSION_STRING.
 *   - MPI_Wtick > 0 (and at most 1 s); MPI_Wtime never goes backwards over
 *     many calls and advances across a 20 ms sleep by roughly that much.
 *   - Every rank (0 included, by a non-blocking send to itself) sends
 *     {rank, size} to rank 0; rank 0 receives them with MPI_ANY_SOURCE and
 *     checks that each rank was heard exactly once, with status.MPI_SOURCE
 *     and status.MPI_TAG matching the sender and the tag.
 *
 * Prints "hello: OK (N ranks)" from rank 0 after MPI_Finalize.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "hello"
#include "check.h"

#define TAG_HELLO 7

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* A string `call` returned in s (cap bytes) with resultlen `len`: 0 < len < cap, and
 * NUL-terminated (`noun` names it in the message). */
static void check_returned_string(const char *call, const char *noun, const char *s, int cap,
                                  int len) {
  if (len <= 0 || len >= cap) fail("%s resultlen: got %d, expected 1..%d", call, len, cap - 1);
  if (memchr(s, '\0', (size_t)cap) == NULL) fail("%s: %s is not NUL-terminated", call, noun);
}

int main(int argc, char **argv) {
  int flag = -1, rank, size;

  /* Before MPI_Init. */
  CHECK_MPI(MPI_Initialized(&flag));
  EXPECT_INT("MPI_Initialized before MPI_Init", flag, 0);
  flag = -1;
  CHECK_MPI(MPI_Finalized(&flag));
  EXPECT_INT("MPI_Finalized before MPI_Init", flag, 0);

  CHECK_MPI(MPI_Init(&argc, &argv));

  flag = -1;
  CHECK_MPI(MPI_Initialized(&flag));
  EXPECT_INT("MPI_Initialized after MPI_Init", flag, 1);
  flag = -1;
  CHECK_MPI(MPI_Finalized(&flag));
  EXPECT_INT("MPI_Finalized after MPI_Init", flag, 0);

  rank = -1;
  size = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size < 1) fail("MPI_Comm_size: got %d, expected >= 1", size);
  if (rank < 0 || rank >= size) fail("MPI_Comm_rank: got %d, expected 0 <= rank < %d", rank, size);

  /* Processor name. */
  {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;
    memset(name, 'X', sizeof name);
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    check_returned_string("MPI_Get_processor_name", "name", name, MPI_MAX_PROCESSOR_NAME, len);
    EXPECT_INT("MPI_Get_processor_name strlen(name) vs resultlen", (long long)strlen(name), len);
  }

  /* Versions. */
  {
    int version = -1, subversion = -1, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    if (version < 3) fail("MPI_Get_version version: got %d, expected >= 3", version);
    if (subversion < 0) fail("MPI_Get_version subversion: got %d, expected >= 0", subversion);
    memset(lib, 'X', sizeof lib);
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    check_returned_string("MPI_Get_library_version", "string", lib, MPI_MAX_LIBRARY_VERSION_STRING,
                          len);
    /* The standard says resultlen counts the printable characters;
     * Open MPI 4.1 counts the terminating NUL as well, so accept both. */
    if ((int)strlen(lib) != len && (int)strlen(lib) + 1 != len)
      fail(
          "MPI_Get_library_version resultlen: got %d, expected strlen "
          "(%d) or strlen + 1",
          len, (int)strlen(lib));
  }

  /* Clock. */
  {
    double tick = MPI_Wtick();
    double t0, prev, t1;
    int i;
    if (!(tick > 0.0) || tick > 1.0) fail("MPI_Wtick: got %g, expected 0 < tick <= 1", tick);
    t0 = MPI_Wtime();
    prev = t0;
    for (i = 0; i < 100000; i++) {
      double t = MPI_Wtime();
      if (t < prev) fail("MPI_Wtime went backwards: got %.9f after %.9f", t, prev);
      prev = t;
    }
    sleep_ms(20);
    t1 = MPI_Wtime();
    if (!(t1 > t0)) fail("MPI_Wtime after a 20 ms sleep: got %.9f, expected > %.9f", t1, t0);
    /* The sleep lasts at least 20 ms; allow for a coarse tick. */
    if (t1 - t0 < 0.019 - tick)
      fail("MPI_Wtime across a 20 ms sleep: got %.6f s, expected >= 0.019 s", t1 - t0);
    if (t1 - t0 > 30.0)
      fail("MPI_Wtime across a 20 ms sleep: got %.6f s, expected < 30 s", t1 - t0);
  }

  /* Every rank reports to rank 0. */
  {
    int msg[2] = {rank, size};
    MPI_Request self_req = MPI_REQUEST_NULL;
    if (rank != 0) {
      CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, TAG_HELLO, MPI_COMM_WORLD));
    } else {
      int *seen = calloc((size_t)size, sizeof *seen);
      int i;
      if (seen == NULL) fail("out of memory");
      /* Rank 0 reports to itself too, without blocking. */
      CHECK_MPI(MPI_Isend(msg, 2, MPI_INT, 0, TAG_HELLO, MPI_COMM_WORLD, &self_req));
      for (i = 0; i < size; i++) {
        int in[2] = {-1, -1};
        int count = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, TAG_HELLO, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        EXPECT_INT("hello message count", count, 2);
        EXPECT_INT("hello message tag", st.MPI_TAG, TAG_HELLO);
        if (in[0] < 0 || in[0] >= size)
          fail("hello message rank: got %d, expected 0..%d", in[0], size - 1);
        EXPECT_INT("hello message: status.MPI_SOURCE vs reported rank", st.MPI_SOURCE, in[0]);
        if (seen[in[0]]) fail("hello message from rank %d: got it twice, expected once", in[0]);
        seen[in[0]] = 1;
        EXPECT_INT("hello message: size seen by sender", in[1], size);
      }
      CHECK_MPI(MPI_Wait(&self_req, MPI_STATUS_IGNORE));
      if (self_req != MPI_REQUEST_NULL)
        fail("MPI_Wait did not set the request to MPI_REQUEST_NULL");
      free(seen);
    }
  }

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  g_finalized = 1;

  flag = -1;
  if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 1)
    fail("MPI_Finalized after MPI_Finalize: got %d, expected 1", flag);
  flag = -1;
  if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 1)
    fail("MPI_Initialized after MPI_Finalize: got %d, expected 1", flag);

  if (rank == 0) {
    printf("%s: OK (%d ranks)\n", PROGRAM, size);
    fflush(stdout);
  }
  return 0;
}

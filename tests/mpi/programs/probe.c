/*
 * probe.c - MPI_Probe / MPI_Iprobe / MPI_Get_count and MPI_PROC_NULL.
 *
 * Checks:
 *   1. Probe-then-receive of messages of unknown size: every rank r sends
 *      rank 0 two messages with tag r+100, in this order: A = 10*r+3 ints and
 *      B = 300000 doubles (a large message). Ranks r > 0 use MPI_Send; rank 0
 *      sends its own pair to itself with MPI_Isend. Rank 0 loops
 *      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG), sizes its buffer with
 *      MPI_Get_count (the first message probed from a source must be A, the
 *      second B: messages from one sender are not overtaken), receives from
 *      status.MPI_SOURCE with status.MPI_TAG, and checks the counts (also in
 *      bytes), the receive status and every element.
 *   2. MPI_Iprobe polling: MPI_Iprobe for a tag nobody uses gives flag 0.
 *      Every rank MPI_Isends rank 0 a tag-50 message (r+1 ints) and then a
 *      tag-51 message (2r+5 ints). Rank 0 first polls MPI_Iprobe(s, 51) for
 *      each source s in turn (a specific tag must skip the earlier tag-50
 *      message), then polls MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) until all
 *      tag-50 messages are in. Polling gives up after 30 s.
 *   3. MPI_PROC_NULL: MPI_Send/MPI_Isend to it complete at once; MPI_Recv,
 *      MPI_Irecv+MPI_Wait, MPI_Sendrecv, MPI_Probe and MPI_Iprobe (flag 1) on
 *      it complete at once with status.MPI_SOURCE == MPI_PROC_NULL,
 *      status.MPI_TAG == MPI_ANY_TAG and MPI_Get_count == 0, and leave the
 *      receive buffer untouched.
 *   4. Probing on MPI_COMM_SELF: a message to oneself is reported with
 *      MPI_SOURCE 0, the rank in that communicator, whatever the world rank.
 *
 * Prints "probe: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "probe"
#include "check.h"

#define BIG_COUNT 300000
#define TAG_BASE 100
#define TAG_EARLY 50
#define TAG_LATE 51
#define TAG_NEVER 999
#define POLL_LIMIT_S 30.0

static int rank, size;

static int a_count(int r) { return 10 * r + 3; }
static int a_value(int r, int i) { return r * 100000 + i; }
static double b_value(int r, int i) { return r + i * 0.25; }
static int early_count(int r) { return r + 1; }
static int late_count(int r) { return 2 * r + 5; }

static void probe_unknown_sizes(void) {
  int *a = malloc((size_t)a_count(rank) * sizeof *a);
  double *b = malloc(BIG_COUNT * sizeof *b);
  int i;
  if (a == NULL || b == NULL) fail("out of memory");
  for (i = 0; i < a_count(rank); i++) a[i] = a_value(rank, i);
  for (i = 0; i < BIG_COUNT; i++) b[i] = b_value(rank, i);

  if (rank != 0) {
    CHECK_MPI(MPI_Send(a, a_count(rank), MPI_INT, 0, TAG_BASE + rank, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(b, BIG_COUNT, MPI_DOUBLE, 0, TAG_BASE + rank, MPI_COMM_WORLD));
  } else {
    MPI_Request self[2];
    int *seen = calloc((size_t)size, sizeof *seen);
    int m;
    if (seen == NULL) fail("out of memory");
    CHECK_MPI(MPI_Isend(a, a_count(0), MPI_INT, 0, TAG_BASE, MPI_COMM_WORLD, &self[0]));
    CHECK_MPI(MPI_Isend(b, BIG_COUNT, MPI_DOUBLE, 0, TAG_BASE, MPI_COMM_WORLD, &self[1]));
    for (m = 0; m < 2 * size; m++) {
      MPI_Status st, rst;
      int src, tag, count = -1, bytes = -1, rcount = -1;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      src = st.MPI_SOURCE;
      tag = st.MPI_TAG;
      if (src < 0 || src >= size)
        fail("MPI_Probe status.MPI_SOURCE: got %d, expected 0..%d", src, size - 1);
      if (seen[src] >= 2) fail("MPI_Probe: a third message from rank %d, expected two", src);
      EXPECT_INT("MPI_Probe status.MPI_TAG", tag, TAG_BASE + src);
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &bytes));
      if (seen[src] == 0) {
        /* Message A. */
        int *buf;
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
        if (count != a_count(src))
          fail(
              "MPI_Get_count on the first message probed from rank %d: "
              "got %d ints, expected %d (message B overtook A?)",
              src, count, a_count(src));
        EXPECT_INT("MPI_Get_count(MPI_BYTE) on message A", bytes,
                   (long long)a_count(src) * (long long)sizeof(int));
        buf = malloc((size_t)count * sizeof *buf);
        if (buf == NULL) fail("out of memory");
        CHECK_MPI(MPI_Recv(buf, count, MPI_INT, src, tag, MPI_COMM_WORLD, &rst));
        CHECK_MPI(MPI_Get_count(&rst, MPI_INT, &rcount));
        EXPECT_INT("MPI_Recv of message A: count", rcount, a_count(src));
        for (i = 0; i < count; i++)
          if (buf[i] != a_value(src, i))
            fail("message A from rank %d element %d: got %d, expected %d", src, i, buf[i],
                 a_value(src, i));
        free(buf);
      } else {
        /* Message B. */
        double *buf;
        CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
        if (count != BIG_COUNT)
          fail(
              "MPI_Get_count on the second message probed from rank %d: "
              "got %d doubles, expected %d",
              src, count, BIG_COUNT);
        EXPECT_INT("MPI_Get_count(MPI_BYTE) on message B", bytes,
                   (long long)BIG_COUNT * (long long)sizeof(double));
        buf = malloc((size_t)count * sizeof *buf);
        if (buf == NULL) fail("out of memory");
        CHECK_MPI(MPI_Recv(buf, count, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, &rst));
        CHECK_MPI(MPI_Get_count(&rst, MPI_DOUBLE, &rcount));
        EXPECT_INT("MPI_Recv of message B: count", rcount, BIG_COUNT);
        for (i = 0; i < count; i++)
          if (buf[i] != b_value(src, i))
            fail("message B from rank %d element %d: got %g, expected %g", src, i, buf[i],
                 b_value(src, i));
        free(buf);
      }
      EXPECT_INT("MPI_Recv status.MPI_SOURCE", rst.MPI_SOURCE, src);
      EXPECT_INT("MPI_Recv status.MPI_TAG", rst.MPI_TAG, tag);
      seen[src]++;
    }
    for (i = 0; i < size; i++)
      if (seen[i] != 2) fail("messages probed from rank %d: got %d, expected 2", i, seen[i]);
    CHECK_MPI(MPI_Waitall(2, self, MPI_STATUSES_IGNORE));
    free(seen);
  }
  free(a);
  free(b);
}

/* Polls MPI_Iprobe(source, tag) until it reports a message. */
static void poll_iprobe(int source, int tag, MPI_Status *st, const char *what) {
  double t0 = MPI_Wtime();
  long polls = 0;
  for (;;) {
    int flag = -1;
    CHECK_MPI(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, st));
    polls++;
    if (flag == -1) fail("%s: MPI_Iprobe did not set flag", what);
    if (flag) return;
    if (MPI_Wtime() - t0 > POLL_LIMIT_S)
      fail(
          "%s: MPI_Iprobe found no message after %ld polls in %.0f s, "
          "expected one",
          what, polls, POLL_LIMIT_S);
  }
}

static void iprobe_polling(void) {
  int *early = malloc((size_t)early_count(rank) * sizeof *early);
  int *late = malloc((size_t)late_count(rank) * sizeof *late);
  MPI_Request reqs[2];
  int i;
  if (early == NULL || late == NULL) fail("out of memory");
  for (i = 0; i < early_count(rank); i++) early[i] = rank * 1000 + i;
  for (i = 0; i < late_count(rank); i++) late[i] = -(rank * 1000 + i);

  if (rank == 0) {
    int flag = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &flag, &st));
    EXPECT_INT("MPI_Iprobe for a tag nobody sends: flag", flag, 0);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  CHECK_MPI(MPI_Isend(early, early_count(rank), MPI_INT, 0, TAG_EARLY, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(late, late_count(rank), MPI_INT, 0, TAG_LATE, MPI_COMM_WORLD, &reqs[1]));

  if (rank == 0) {
    int s, got;
    int *seen = calloc((size_t)size, sizeof *seen);
    int *buf = malloc((size_t)(2 * size + 5) * sizeof *buf);
    if (seen == NULL || buf == NULL) fail("out of memory");
    /* Specific source and the later tag. */
    for (s = 0; s < size; s++) {
      MPI_Status st, rst;
      int count = -1;
      char what[100];
      snprintf(what, sizeof what, "MPI_Iprobe(%d, %d)", s, TAG_LATE);
      poll_iprobe(s, TAG_LATE, &st, what);
      EXPECT_INT("MPI_Iprobe (specific) status.MPI_SOURCE", st.MPI_SOURCE, s);
      EXPECT_INT("MPI_Iprobe (specific) status.MPI_TAG", st.MPI_TAG, TAG_LATE);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      EXPECT_INT("MPI_Iprobe (specific) MPI_Get_count", count, late_count(s));
      CHECK_MPI(MPI_Recv(buf, count, MPI_INT, s, TAG_LATE, MPI_COMM_WORLD, &rst));
      for (i = 0; i < count; i++)
        if (buf[i] != -(s * 1000 + i))
          fail("tag-%d message from rank %d element %d: got %d, expected %d", TAG_LATE, s, i,
               buf[i], -(s * 1000 + i));
    }
    /* Any source, any tag: only the tag-50 messages are left. */
    for (got = 0; got < size; got++) {
      MPI_Status st, rst;
      int count = -1, src;
      poll_iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, &st, "MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG)");
      src = st.MPI_SOURCE;
      if (src < 0 || src >= size)
        fail("MPI_Iprobe (any) status.MPI_SOURCE: got %d, expected 0..%d", src, size - 1);
      if (seen[src])
        fail(
            "MPI_Iprobe (any): second tag-%d message from rank %d, "
            "expected one",
            TAG_EARLY, src);
      seen[src] = 1;
      EXPECT_INT("MPI_Iprobe (any) status.MPI_TAG", st.MPI_TAG, TAG_EARLY);
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
      EXPECT_INT("MPI_Iprobe (any) MPI_Get_count", count, early_count(src));
      CHECK_MPI(MPI_Recv(buf, count, MPI_INT, src, st.MPI_TAG, MPI_COMM_WORLD, &rst));
      EXPECT_INT("MPI_Recv after MPI_Iprobe: status.MPI_SOURCE", rst.MPI_SOURCE, src);
      for (i = 0; i < count; i++)
        if (buf[i] != src * 1000 + i)
          fail("tag-%d message from rank %d element %d: got %d, expected %d", TAG_EARLY, src, i,
               buf[i], src * 1000 + i);
    }
    /* Nothing left. */
    {
      int flag = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
      EXPECT_INT("MPI_Iprobe after receiving everything: flag", flag, 0);
    }
    free(seen);
    free(buf);
  }
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  free(early);
  free(late);
}

static void check_null_status(const char *what, const MPI_Status *st) {
  int count = -1;
  char buf[160];
  snprintf(buf, sizeof buf, "%s: status.MPI_SOURCE (MPI_PROC_NULL = %d)", what, MPI_PROC_NULL);
  EXPECT_INT(buf, st->MPI_SOURCE, MPI_PROC_NULL);
  snprintf(buf, sizeof buf, "%s: status.MPI_TAG (MPI_ANY_TAG = %d)", what, MPI_ANY_TAG);
  EXPECT_INT(buf, st->MPI_TAG, MPI_ANY_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
  snprintf(buf, sizeof buf, "%s: MPI_Get_count", what);
  EXPECT_INT(buf, count, 0);
}

static void check_untouched(const char *what, const int *buf, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (buf[i] != 12345)
      fail("%s: receive buffer element %d: got %d, expected 12345 (untouched)", what, i, buf[i]);
}

static void proc_null(void) {
  int out[5] = {1, 2, 3, 4, 5};
  int in[5];
  int i, flag;
  MPI_Status st;
  MPI_Request req;

#define RESET()                            \
  do {                                     \
    for (i = 0; i < 5; i++) in[i] = 12345; \
    memset(&st, 0x5a, sizeof st);          \
  } while (0)

  CHECK_MPI(MPI_Send(out, 5, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));

  CHECK_MPI(MPI_Isend(out, 5, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

  RESET();
  CHECK_MPI(MPI_Recv(in, 5, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
  check_null_status("MPI_Recv(MPI_PROC_NULL, tag 5)", &st);
  check_untouched("MPI_Recv(MPI_PROC_NULL)", in, 5);

  RESET();
  CHECK_MPI(MPI_Recv(in, 5, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  check_null_status("MPI_Recv(MPI_PROC_NULL, MPI_ANY_TAG)", &st);

  RESET();
  CHECK_MPI(MPI_Irecv(in, 5, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  check_null_status("MPI_Irecv(MPI_PROC_NULL) + MPI_Wait", &st);
  check_untouched("MPI_Irecv(MPI_PROC_NULL)", in, 5);
  if (req != MPI_REQUEST_NULL)
    fail("MPI_Wait on a MPI_PROC_NULL receive did not set MPI_REQUEST_NULL");

  RESET();
  CHECK_MPI(MPI_Sendrecv(out, 5, MPI_INT, MPI_PROC_NULL, 6, in, 5, MPI_INT, MPI_PROC_NULL, 6,
                         MPI_COMM_WORLD, &st));
  check_null_status("MPI_Sendrecv(MPI_PROC_NULL, MPI_PROC_NULL)", &st);
  check_untouched("MPI_Sendrecv(MPI_PROC_NULL)", in, 5);

  RESET();
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  check_null_status("MPI_Probe(MPI_PROC_NULL)", &st);

  RESET();
  flag = -1;
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 7, MPI_COMM_WORLD, &flag, &st));
  if (!flag) fail("MPI_Iprobe(MPI_PROC_NULL) flag: got 0, expected true");
  check_null_status("MPI_Iprobe(MPI_PROC_NULL)", &st);
#undef RESET
}

/* Every rank is rank 0 of MPI_COMM_SELF: statuses give communicator ranks. */
static void probe_on_self(void) {
  int out = 40 + rank, in = -1, flag = 0;
  MPI_Status st;
  MPI_Request req;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, 0, 61, MPI_COMM_SELF, &req));
  CHECK_MPI(MPI_Probe(0, 61, MPI_COMM_SELF, &st));
  if (st.MPI_SOURCE != 0) fail("MPI_Probe on MPI_COMM_SELF: MPI_SOURCE %d, expected 0", st.MPI_SOURCE);
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 61, MPI_COMM_SELF, &flag, &st));
  if (!flag) fail("MPI_Iprobe on MPI_COMM_SELF found no message");
  if (st.MPI_SOURCE != 0) fail("MPI_Iprobe on MPI_COMM_SELF: MPI_SOURCE %d, expected 0", st.MPI_SOURCE);
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 61, MPI_COMM_SELF, &st));
  if (st.MPI_SOURCE != 0 || in != out) {
    fail("MPI_Recv on MPI_COMM_SELF: MPI_SOURCE %d and %d, expected 0 and %d", st.MPI_SOURCE, in,
         out);
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  probe_unknown_sizes();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  iprobe_polling();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  proc_null();
  probe_on_self();

  finalize_and_report(size);
  return 0;
}

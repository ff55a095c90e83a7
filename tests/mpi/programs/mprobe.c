/*
 * mprobe.c - matched probes: MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv.
 *
 * Checks:
 *   1. Every rank r sends rank 0 three messages: r+1 ints and 200000+r ints (a
 *      large one) with tag 7, then 200000+r ints with tag 8. Rank 0 MPI_Mprobes (MPI_ANY_SOURCE,
 * 7), which finds each source's small message first; an ordinary MPI_Recv from that source must
 * then get the big message, since the matched one is out of matching; then MPI_Mrecv or MPI_Imrecv
 * receives the matched message, sized from the probe's status. The tag-8 messages are then matched
 * (any source, any tag) and received likewise. Every element and status is checked.
 *   2. MPI_Improbe polls (with MPI_Imrecv) for a tag-9 message from every other
 *      rank (its own included, sent with MPI_Isend); an unused tag gives flag 0
 *      and leaves the status alone.
 *   3. MPI_PROC_NULL: MPI_Mprobe and MPI_Improbe give MPI_MESSAGE_NO_PROC, whose
 *      MPI_Mrecv / MPI_Imrecv complete at once with source MPI_PROC_NULL, tag
 *      MPI_ANY_TAG, count 0, and set the message to MPI_MESSAGE_NULL.
 *
 * Prints "mprobe: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "mprobe"
#include "check.h"

#define TAG 7
#define TAG_LAST 8
#define TAG_POLL 9
#define BIG 200000

static int value(int source, int which, int i) { return source * 1000003 + which * 7919 + i; }

static int small_count(int r) { return r + 1; }
static int big_count(int r) { return BIG + r; }

static void check_elements(const char *what, const int *in, int count, int source, int which) {
  for (int i = 0; i < count; ++i) {
    if (in[i] != value(source, which, i))
      fail("%s from rank %d: element %d is %d, expected %d", what, source, i, in[i],
           value(source, which, i));
  }
}

/* Receives the message `*message` of `count` ints from `source` (MPI_Mrecv or, when
 * `nonblocking`, MPI_Imrecv and MPI_Wait) and checks it. */
static void receive_matched(MPI_Message *message, int count, int source, int tag, int which,
                            int nonblocking) {
  int *in = xmalloc(sizeof(int) * (size_t)count);
  MPI_Status received;
  if (!nonblocking) {
    CHECK_MPI(MPI_Mrecv(in, count, MPI_INT, message, &received));
  } else {
    MPI_Request request;
    CHECK_MPI(MPI_Imrecv(in, count, MPI_INT, message, &request));
    if (*message != MPI_MESSAGE_NULL) fail("MPI_Imrecv left the message handle set");
    CHECK_MPI(MPI_Wait(&request, &received));
  }
  if (*message != MPI_MESSAGE_NULL) fail("MPI_Mrecv left the message handle set");
  expect_status("matched receive", &received, source, tag, MPI_INT, count);
  check_elements("matched message", in, count, source, which);
  free(in);
}

static void matched_receives(int rank, int size) {
  int *small = xmalloc(sizeof(int) * (size_t)small_count(rank));
  int *big = xmalloc(sizeof(int) * (size_t)big_count(rank));
  int *bigger = xmalloc(sizeof(int) * (size_t)big_count(rank));
  for (int i = 0; i < small_count(rank); ++i) small[i] = value(rank, 0, i);
  for (int i = 0; i < big_count(rank); ++i) big[i] = value(rank, 1, i);
  for (int i = 0; i < big_count(rank); ++i) bigger[i] = value(rank, 2, i);
  MPI_Request sends[3];
  CHECK_MPI(MPI_Isend(small, small_count(rank), MPI_INT, 0, TAG, MPI_COMM_WORLD, &sends[0]));
  CHECK_MPI(MPI_Isend(big, big_count(rank), MPI_INT, 0, TAG, MPI_COMM_WORLD, &sends[1]));
  CHECK_MPI(MPI_Isend(bigger, big_count(rank), MPI_INT, 0, TAG_LAST, MPI_COMM_WORLD, &sends[2]));
  if (rank == 0) {
    int *seen = calloc((size_t)size, sizeof(int));
    for (int n = 0; n < size; ++n) {
      /* Each source's first message is its small one; matching it takes it out of
       * matching, so an ordinary receive from that source then gets the big one. */
      MPI_Message message;
      MPI_Status status;
      CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &message, &status));
      if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        fail("MPI_Mprobe returned a null message");
      int source = status.MPI_SOURCE, count;
      EXPECT_INT("mprobe status.MPI_TAG", status.MPI_TAG, TAG);
      if (seen[source]++) fail("MPI_Mprobe found a second message from rank %d", source);
      CHECK_MPI(MPI_Get_count(&status, MPI_INT, &count));
      EXPECT_INT("mprobed count", count, small_count(source));
      int *in = xmalloc(sizeof(int) * (size_t)big_count(source) + sizeof(int));
      MPI_Status received;
      CHECK_MPI(
          MPI_Recv(in, big_count(source) + 1, MPI_INT, source, TAG, MPI_COMM_WORLD, &received));
      expect_status("ordinary receive after mprobe", &received, source, TAG, MPI_INT,
                    big_count(source));
      check_elements("ordinary receive after mprobe", in, big_count(source), source, 1);
      free(in);
      receive_matched(&message, count, source, TAG, 0, n % 2);
    }
    /* The third messages, large, through the rendezvous protocol. */
    for (int n = 0; n < size; ++n) {
      MPI_Message message;
      MPI_Status status;
      int count;
      CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status));
      CHECK_MPI(MPI_Get_count(&status, MPI_INT, &count));
      EXPECT_INT("large mprobed count", count, big_count(status.MPI_SOURCE));
      EXPECT_INT("large mprobed tag", status.MPI_TAG, TAG_LAST);
      receive_matched(&message, count, status.MPI_SOURCE, TAG_LAST, 2, n % 2);
    }
    free(seen);
  }
  CHECK_MPI(MPI_Waitall(3, sends, MPI_STATUSES_IGNORE));
  free(small);
  free(big);
  free(bigger);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void polled_receives(int rank, int size) {
  int out[3] = {rank, rank * 2, rank * 3};
  MPI_Request *sends = xmalloc(sizeof(MPI_Request) * (size_t)size);
  for (int d = 0; d < size; ++d)
    CHECK_MPI(MPI_Isend(out, 3, MPI_INT, d, TAG_POLL, MPI_COMM_WORLD, &sends[d]));
  MPI_Status status;
  int flag = 1;
  status.MPI_SOURCE = -77;
  MPI_Message unused = MPI_MESSAGE_NULL;
  flag = 1;
  CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 4321, MPI_COMM_WORLD, &flag, &unused, &status));
  EXPECT_INT("improbe flag for an unused tag", flag, 0);
  EXPECT_INT("improbe leaves the status alone", status.MPI_SOURCE, -77);
  int *got = calloc((size_t)size, sizeof(int));
  double start = MPI_Wtime();
  for (int received = 0; received < size;) {
    MPI_Message message;
    CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, TAG_POLL, MPI_COMM_WORLD, &flag, &message, &status));
    if (!flag) {
      if (MPI_Wtime() - start > 30) fail("MPI_Improbe polled for 30 s");
      continue;
    }
    int in[3] = {-1, -1, -1};
    MPI_Request request;
    CHECK_MPI(MPI_Imrecv(in, 3, MPI_INT, &message, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    int s = status.MPI_SOURCE;
    expect_status("imrecv", &status, s, TAG_POLL, MPI_INT, 3);
    if (got[s]++) fail("two tag-%d messages from rank %d", TAG_POLL, s);
    for (int i = 0; i < 3; ++i) EXPECT_INT("polled element", in[i], s * (i + 1));
    ++received;
  }
  CHECK_MPI(MPI_Waitall(size, sends, MPI_STATUSES_IGNORE));
  free(got);
  free(sends);
}

static void proc_null(void) {
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  int buf[2] = {5, 6}, flag = 0;
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &message, &status));
  if (message != MPI_MESSAGE_NO_PROC) fail("MPI_Mprobe(MPI_PROC_NULL) is not MPI_MESSAGE_NO_PROC");
  expect_status("mprobe proc_null", &status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  CHECK_MPI(MPI_Mrecv(buf, 2, MPI_INT, &message, &status));
  expect_status("mrecv proc_null", &status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  if (message != MPI_MESSAGE_NULL) fail("MPI_Mrecv left MPI_MESSAGE_NO_PROC set");
  CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message, &status));
  EXPECT_INT("improbe proc_null flag", flag, 1);
  if (message != MPI_MESSAGE_NO_PROC) fail("MPI_Improbe(MPI_PROC_NULL) is not MPI_MESSAGE_NO_PROC");
  MPI_Request request;
  CHECK_MPI(MPI_Imrecv(buf, 2, MPI_INT, &message, &request));
  if (request == MPI_REQUEST_NULL) fail("MPI_Imrecv of MPI_MESSAGE_NO_PROC gave no request");
  CHECK_MPI(MPI_Wait(&request, &status));
  expect_status("imrecv proc_null", &status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  EXPECT_INT("untouched buffer", buf[0] * 10 + buf[1], 56);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  matched_receives(rank, size);
  polled_receives(rank, size);
  proc_null();
  finalize_and_report(size);
  return 0;
}

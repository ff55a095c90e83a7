/*
 * nonblocking.c - completion calls over many outstanding requests.
 *
 * Every rank exchanges NMSG messages with every rank (itself included) in
 * each part; message lengths vary per (source, destination, index) and the
 * last message of each pair is large (about 40000 ints).
 *
 * Checks:
 *   1. MPI_Waitany: receives posted with distinct tags per message; each
 *      index Waitany returns is new, its request became MPI_REQUEST_NULL, and
 *      status.MPI_SOURCE / MPI_TAG, MPI_Get_count and the contents match the
 *      message that request was posted for. Once all are done, MPI_Waitany
 *      returns index MPI_UNDEFINED.
 *   2. MPI_Testall: one array holding the receives (one tag per source, so
 *      the non-overtaking order decides which buffer gets which message),
 *      the sends and some MPI_REQUEST_NULL entries; polled until flag is
 *      true (30 s at most); then every request is MPI_REQUEST_NULL and every
 *      receive status and buffer is right.
 *   3. MPI_Test: MPI_ANY_SOURCE receives, one message from every rank, each
 *      request polled with MPI_Test until done; every source seen once and
 *      the status agrees with the contents.
 *   4. MPI_Request_free on a send request whose message is known (by an
 *      acknowledgement) to have been received: the handle becomes
 *      MPI_REQUEST_NULL. MPI_Request_free on a still-active large send: the
 *      handle becomes MPI_REQUEST_NULL and the message still arrives intact
 *      (the send buffer is kept until the receiver acknowledges).
 *   5. MPI_REQUEST_NULL: MPI_Test gives flag true and an empty status
 *      (MPI_ANY_SOURCE, MPI_ANY_TAG, count 0); MPI_Wait returns the empty
 *      status; MPI_Testall over null requests gives flag true; MPI_Waitall
 *      over them returns; MPI_Waitany over them gives MPI_UNDEFINED.
 *   6. MPI_Cancel of a receive nothing will match: MPI_Wait completes it and
 *      MPI_Test_cancelled says so, its buffer untouched. A receive whose
 *      message has arrived (MPI_Probe said so) is cancelled in vain: it
 *      completes with the message and MPI_Test_cancelled gives false.
 *
 * Prints "nonblocking: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "nonblocking"
#include "check.h"

#define NMSG 6
#define TAG_ANY_BASE 100 /* part 1: tag = base + message index */
#define TAG_SAME 200     /* part 2 */
#define TAG_TEST 300     /* part 3 */
#define TAG_FREE 400     /* part 4 */
#define TAG_ACK 401
#define POLL_LIMIT_S 30.0

static int rank, size;

static int msg_count(int src, int dst, int m) {
  if (m == NMSG - 1) return 40000 + src * 100 + dst;
  return 1 + (src * 7 + dst * 3 + m * 11) % 50;
}

static int msg_value(int src, int dst, int m, int i, int part) {
  return part * 100000000 + src * 1000000 + dst * 100000 + m * 10000 + i % 10000;
}

/* Send buffers for every destination and message, and receive buffers for
 * every source and message. */
struct exchange {
  int *sbuf[4096], *rbuf[4096];
  MPI_Request sreq[4096], rreq[4096];
};

static void alloc_exchange(struct exchange *x, int part) {
  int p, m, i;
  if (size * NMSG > 4096) fail("too many ranks for this test: %d", size);
  for (p = 0; p < size; p++) {
    for (m = 0; m < NMSG; m++) {
      int k = p * NMSG + m;
      int sc = msg_count(rank, p, m), rc = msg_count(p, rank, m);
      x->sbuf[k] = xmalloc((size_t)sc * sizeof(int));
      x->rbuf[k] = xmalloc((size_t)rc * sizeof(int));
      for (i = 0; i < sc; i++) x->sbuf[k][i] = msg_value(rank, p, m, i, part);
      for (i = 0; i < rc; i++) x->rbuf[k][i] = -1;
      x->sreq[k] = MPI_REQUEST_NULL;
      x->rreq[k] = MPI_REQUEST_NULL;
    }
  }
}

static void free_exchange(struct exchange *x) {
  int k;
  for (k = 0; k < size * NMSG; k++) {
    free(x->sbuf[k]);
    free(x->rbuf[k]);
  }
}

static void check_received(const struct exchange *x, int src, int m, int part, const MPI_Status *st,
                           int tag, const char *what) {
  int i, n = msg_count(src, rank, m);
  const int *b = x->rbuf[src * NMSG + m];
  char buf[200];
  snprintf(buf, sizeof buf, "%s: message %d from rank %d", what, m, src);
  expect_status(buf, st, src, tag, MPI_INT, n);
  for (i = 0; i < n; i++)
    if (b[i] != msg_value(src, rank, m, i, part))
      fail("%s: message %d from rank %d element %d: got %d, expected %d", what, m, src, i, b[i],
           msg_value(src, rank, m, i, part));
}

static void check_empty_status(const MPI_Status *st, const char *what) {
  int count = -1;
  char buf[200];
  snprintf(buf, sizeof buf, "%s: status.MPI_SOURCE (MPI_ANY_SOURCE = %d)", what, MPI_ANY_SOURCE);
  EXPECT_INT(buf, st->MPI_SOURCE, MPI_ANY_SOURCE);
  snprintf(buf, sizeof buf, "%s: status.MPI_TAG (MPI_ANY_TAG = %d)", what, MPI_ANY_TAG);
  EXPECT_INT(buf, st->MPI_TAG, MPI_ANY_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
  snprintf(buf, sizeof buf, "%s: MPI_Get_count", what);
  EXPECT_INT(buf, count, 0);
}

/* 1. Waitany. */
static void part_waitany(void) {
  static struct exchange x;
  int n = size * NMSG, k, done, idx;
  char *seen = xmalloc((size_t)n);
  MPI_Status st;
  memset(seen, 0, (size_t)n);
  alloc_exchange(&x, 1);
  for (k = 0; k < n; k++)
    CHECK_MPI(MPI_Irecv(x.rbuf[k], msg_count(k / NMSG, rank, k % NMSG), MPI_INT, k / NMSG,
                        TAG_ANY_BASE + k % NMSG, MPI_COMM_WORLD, &x.rreq[k]));
  /* Send in reverse message order so the later receives complete first. */
  for (k = n - 1; k >= 0; k--)
    CHECK_MPI(MPI_Isend(x.sbuf[k], msg_count(rank, k / NMSG, k % NMSG), MPI_INT, k / NMSG,
                        TAG_ANY_BASE + k % NMSG, MPI_COMM_WORLD, &x.sreq[k]));
  for (done = 0; done < n; done++) {
    idx = -12345;
    CHECK_MPI(MPI_Waitany(n, x.rreq, &idx, &st));
    if (idx < 0 || idx >= n) fail("MPI_Waitany index: got %d, expected 0..%d", idx, n - 1);
    if (seen[idx]) fail("MPI_Waitany returned index %d twice", idx);
    seen[idx] = 1;
    if (x.rreq[idx] != MPI_REQUEST_NULL)
      fail("MPI_Waitany did not set request %d to MPI_REQUEST_NULL", idx);
    check_received(&x, idx / NMSG, idx % NMSG, 1, &st, TAG_ANY_BASE + idx % NMSG, "MPI_Waitany");
  }
  idx = -12345;
  CHECK_MPI(MPI_Waitany(n, x.rreq, &idx, &st));
  EXPECT_INT("MPI_Waitany with every request done: index (MPI_UNDEFINED)", idx, MPI_UNDEFINED);
  CHECK_MPI(MPI_Waitall(n, x.sreq, MPI_STATUSES_IGNORE));
  for (k = 0; k < n; k++)
    if (x.sreq[k] != MPI_REQUEST_NULL)
      fail("MPI_Waitall did not set send request %d to MPI_REQUEST_NULL", k);
  free_exchange(&x);
  free(seen);
}

/* 2. Testall over receives, sends and null requests. */
static void part_testall(void) {
  static struct exchange x;
  int n = size * NMSG, total = 2 * n + 2, k, flag = 0;
  MPI_Request *reqs = xmalloc((size_t)total * sizeof *reqs);
  MPI_Status *sts = xmalloc((size_t)total * sizeof *sts);
  double t0;
  long polls = 0;

  alloc_exchange(&x, 2);
  /* Layout: [null, recvs..., null, sends...]. */
  reqs[0] = MPI_REQUEST_NULL;
  reqs[n + 1] = MPI_REQUEST_NULL;
  for (k = 0; k < n; k++)
    CHECK_MPI(MPI_Irecv(x.rbuf[k], msg_count(k / NMSG, rank, k % NMSG), MPI_INT, k / NMSG, TAG_SAME,
                        MPI_COMM_WORLD, &reqs[1 + k]));
  for (k = 0; k < n; k++)
    CHECK_MPI(MPI_Isend(x.sbuf[k], msg_count(rank, k / NMSG, k % NMSG), MPI_INT, k / NMSG, TAG_SAME,
                        MPI_COMM_WORLD, &reqs[n + 2 + k]));
  t0 = MPI_Wtime();
  while (!flag) {
    flag = -1;
    CHECK_MPI(MPI_Testall(total, reqs, &flag, sts));
    if (flag == -1) fail("MPI_Testall did not set flag");
    polls++;
    if (!flag && MPI_Wtime() - t0 > POLL_LIMIT_S)
      fail(
          "MPI_Testall: not all of %d requests done after %ld polls in "
          "%.0f s",
          total, polls, POLL_LIMIT_S);
  }
  for (k = 0; k < total; k++)
    if (reqs[k] != MPI_REQUEST_NULL)
      fail("MPI_Testall (flag true) left request %d not MPI_REQUEST_NULL", k);
  for (k = 0; k < n; k++)
    check_received(&x, k / NMSG, k % NMSG, 2, &sts[1 + k], TAG_SAME,
                   "MPI_Testall (one tag per source: order decides)");
  free_exchange(&x);
  free(reqs);
  free(sts);
}

/* 3. Test loop over MPI_ANY_SOURCE receives. */
static void part_test(void) {
  int *in = xmalloc((size_t)size * 2 * sizeof *in);
  int out[2] = {rank, rank * 7 + 3};
  MPI_Request *rreq = xmalloc((size_t)size * sizeof *rreq);
  MPI_Request *sreq = xmalloc((size_t)size * sizeof *sreq);
  char *seen = xmalloc((size_t)size), *done = xmalloc((size_t)size);
  int k, ndone = 0;
  double t0;

  memset(seen, 0, (size_t)size);
  memset(done, 0, (size_t)size);
  for (k = 0; k < size; k++)
    CHECK_MPI(
        MPI_Irecv(&in[2 * k], 2, MPI_INT, MPI_ANY_SOURCE, TAG_TEST, MPI_COMM_WORLD, &rreq[k]));
  for (k = 0; k < size; k++)
    CHECK_MPI(MPI_Isend(out, 2, MPI_INT, k, TAG_TEST, MPI_COMM_WORLD, &sreq[k]));
  t0 = MPI_Wtime();
  while (ndone < size) {
    for (k = 0; k < size; k++) {
      int flag = -1;
      MPI_Status st;
      if (done[k]) continue;
      CHECK_MPI(MPI_Test(&rreq[k], &flag, &st));
      if (flag == -1) fail("MPI_Test did not set flag");
      if (!flag) continue;
      done[k] = 1;
      ndone++;
      if (rreq[k] != MPI_REQUEST_NULL)
        fail(
            "MPI_Test (flag true) did not set the request to "
            "MPI_REQUEST_NULL");
      if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= size || seen[st.MPI_SOURCE])
        fail(
            "MPI_Test status.MPI_SOURCE: got %d, expected a rank not seen "
            "yet",
            st.MPI_SOURCE);
      seen[st.MPI_SOURCE] = 1;
      EXPECT_INT("MPI_Test status.MPI_TAG", st.MPI_TAG, TAG_TEST);
      EXPECT_INT("MPI_Test: message contents vs status.MPI_SOURCE", in[2 * k], st.MPI_SOURCE);
      EXPECT_INT("MPI_Test: message contents", in[2 * k + 1], st.MPI_SOURCE * 7 + 3);
    }
    if (ndone < size && MPI_Wtime() - t0 > POLL_LIMIT_S)
      fail("MPI_Test: %d of %d receives done after %.0f s", ndone, size, POLL_LIMIT_S);
  }
  CHECK_MPI(MPI_Waitall(size, sreq, MPI_STATUSES_IGNORE));
  free(in);
  free(rreq);
  free(sreq);
  free(seen);
  free(done);
}

/* 4. MPI_Request_free on send requests. */
static void part_request_free(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out = rank * 3 + 1, in = -1, ack = 0, i;
  const int big = 200000;
  int *bout = xmalloc((size_t)big * sizeof *bout);
  int *bin = xmalloc((size_t)big * sizeof *bin);
  MPI_Request req, ackreq;

  /* (a) Free after the message is known to have arrived. */
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, TAG_FREE, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, TAG_FREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_INT("MPI_Request_free test: message", in, prev * 3 + 1);
  CHECK_MPI(MPI_Isend(&ack, 1, MPI_INT, prev, TAG_ACK, MPI_COMM_WORLD, &ackreq));
  CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, next, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&ackreq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&req));
  if (req != MPI_REQUEST_NULL)
    fail("MPI_Request_free on a delivered send did not set MPI_REQUEST_NULL");

  /* (b) Free while the (large) send may still be in progress. */
  for (i = 0; i < big; i++) {
    bout[i] = rank * 1000000 + i;
    bin[i] = -1;
  }
  CHECK_MPI(MPI_Isend(bout, big, MPI_INT, next, TAG_FREE, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Request_free(&req));
  if (req != MPI_REQUEST_NULL)
    fail("MPI_Request_free on an active send did not set MPI_REQUEST_NULL");
  CHECK_MPI(MPI_Recv(bin, big, MPI_INT, prev, TAG_FREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (i = 0; i < big; i++)
    if (bin[i] != prev * 1000000 + i)
      fail(
          "message sent with a freed request, element %d: got %d, "
          "expected %d",
          i, bin[i], prev * 1000000 + i);
  CHECK_MPI(MPI_Isend(&ack, 1, MPI_INT, prev, TAG_ACK, MPI_COMM_WORLD, &ackreq));
  CHECK_MPI(MPI_Recv(&ack, 1, MPI_INT, next, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&ackreq, MPI_STATUS_IGNORE));
  /* The receiver has everything: the send buffer may go. */
  free(bout);
  free(bin);
}

/* 5. Null requests. */
static void part_null(void) {
  MPI_Request r = MPI_REQUEST_NULL, rs[3];
  MPI_Status st, sts[3];
  int flag = -1, idx = -12345;

  memset(&st, 0x5a, sizeof st);
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  if (!flag) fail("MPI_Test(MPI_REQUEST_NULL) flag: got 0, expected true");
  check_empty_status(&st, "MPI_Test(MPI_REQUEST_NULL)");
  flag = -1;
  CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  if (!flag)
    fail(
        "MPI_Test(MPI_REQUEST_NULL, MPI_STATUS_IGNORE) flag: got 0, expected "
        "true");

  memset(&st, 0x5a, sizeof st);
  CHECK_MPI(MPI_Wait(&r, &st));
  check_empty_status(&st, "MPI_Wait(MPI_REQUEST_NULL)");

  rs[0] = rs[1] = rs[2] = MPI_REQUEST_NULL;
  flag = -1;
  CHECK_MPI(MPI_Testall(3, rs, &flag, sts));
  if (!flag) fail("MPI_Testall over MPI_REQUEST_NULLs flag: got 0, expected true");
  CHECK_MPI(MPI_Waitall(3, rs, sts));
  CHECK_MPI(MPI_Waitany(3, rs, &idx, &st));
  EXPECT_INT("MPI_Waitany over MPI_REQUEST_NULLs: index (MPI_UNDEFINED)", idx, MPI_UNDEFINED);
}

static void part_cancel(void) {
  int buf[4] = {-1, -1, -1, -1}, flag = -1;
  MPI_Request r;
  MPI_Status st;
  /* Tag 900 is never sent. */
  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, (rank + 1) % size, 900, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  if (r != MPI_REQUEST_NULL) fail("a cancelled receive's MPI_Wait left the request set");
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  EXPECT_INT("MPI_Test_cancelled after cancelling an unmatched receive", flag, 1);
  for (int i = 0; i < 4; ++i) EXPECT_INT("a cancelled receive's buffer", buf[i], -1);

  /* To itself: the message is there (MPI_Probe) before the receive is posted. */
  int out = 1000 + rank;
  MPI_Request s;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, rank, 901, MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Probe(rank, 901, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Irecv(buf, 1, MPI_INT, rank, 901, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  EXPECT_INT("MPI_Test_cancelled after cancelling a matched receive", flag, 0);
  EXPECT_INT("the matched receive's message", buf[0], 1000 + rank);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  part_waitany();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  part_testall();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  part_test();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  part_request_free();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  part_null();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  part_cancel();

  finalize_and_report(size);
  return 0;
}

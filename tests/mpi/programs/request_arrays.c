/*
 * request_arrays.c - MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome and
 * MPI_Waitall at their edges: null and inactive entries, several requests
 * done at once, failures among successes, requests that complete outside
 * the message layer, and waits that must sleep until a late message.
 *
 * Checks:
 *   1. Null and inactive entries: over an array of MPI_REQUEST_NULL and an
 *      inactive persistent receive, MPI_Waitany and MPI_Testany give index
 *      MPI_UNDEFINED (Testany's flag true) and the empty status, and
 *      MPI_Waitsome and MPI_Testsome outcount MPI_UNDEFINED.
 *   2. Several done at once: two receives from self, both messages there,
 *      among a null entry and an inactive persistent receive: MPI_Waitany
 *      reports one of the two with its status and sets it to
 *      MPI_REQUEST_NULL; MPI_Testsome then reports the other; neither the
 *      null nor the inactive entry is ever reported.
 *   3. MPI_Testsome and MPI_Testany while nothing is done: outcount 0, flag
 *      false and index MPI_UNDEFINED, every request left as it was.
 *   4. A late message (with 2 or more ranks): rank+1 sends only after a
 *      pause of 100 ms, and MPI_Waitany, then MPI_Waitsome, wait for it.
 *   5. A persistent receive started in an array: once reported it is
 *      inactive, not freed, and the next MPI_Waitany over the array gives
 *      MPI_UNDEFINED; it can be started and completed again.
 *   6. A cancelled receive: MPI_Waitsome reports it, MPI_Test_cancelled
 *      true.
 *   7. A generalized request beside a receive: MPI_Waitany reports the
 *      receive while the generalized request is pending, then the
 *      generalized request once MPI_Grequest_complete was called (its query
 *      callback fills the status).
 *   8. Failures among successes, with MPI_ERRORS_RETURN: a receive of 1 int
 *      that gets 4 beside one that fits, both from rank-1. MPI_Waitall and MPI_Waitsome return
 *      MPI_ERR_IN_STATUS, the failed status's MPI_ERROR is of class
 *      MPI_ERR_TRUNCATE and the other's MPI_SUCCESS with its status right;
 *      MPI_Waitany returns an error of class MPI_ERR_TRUNCATE with the
 *      index of the failed request, and the other request is untouched
 *      (MPI_Wait completes it afterwards).
 *
 * Prints "request_arrays: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define PROGRAM "request_arrays"
#include "check.h"

#define TAG_A 10
#define TAG_B 11
#define TAG_LATE 20
#define TAG_PERSISTENT 30
#define TAG_NEVER 40
#define TAG_GREQ 50
#define TAG_SHORT 60
#define TAG_FITS 61

static int rank, size;

static void check_empty(const char *what, const MPI_Status *st) {
  char buf[200];
  snprintf(buf, sizeof buf, "%s: empty status", what);
  expect_status(buf, st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_INT, 0);
}

static void send_ints(int n, int first, int dest, int tag) {
  int buf[4];
  for (int i = 0; i < n; ++i) buf[i] = first + i;
  CHECK_MPI(MPI_Send(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD));
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* 1. */
static void null_and_inactive(void) {
  int buf = 0, idx = -12345, flag = -1, outcount = -12345, indices[3];
  MPI_Request rs[3];
  MPI_Status st, sts[3];
  rs[0] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Recv_init(&buf, 1, MPI_INT, rank, TAG_NEVER, MPI_COMM_WORLD, &rs[1]));
  rs[2] = MPI_REQUEST_NULL;
  memset(&st, 0x5a, sizeof st);
  CHECK_MPI(MPI_Waitany(3, rs, &idx, &st));
  EXPECT_INT("MPI_Waitany over null and inactive: index", idx, MPI_UNDEFINED);
  check_empty("MPI_Waitany over null and inactive", &st);
  memset(&st, 0x5a, sizeof st);
  CHECK_MPI(MPI_Testany(3, rs, &idx, &flag, &st));
  EXPECT_INT("MPI_Testany over null and inactive: flag", flag, 1);
  EXPECT_INT("MPI_Testany over null and inactive: index", idx, MPI_UNDEFINED);
  check_empty("MPI_Testany over null and inactive", &st);
  CHECK_MPI(MPI_Waitsome(3, rs, &outcount, indices, sts));
  EXPECT_INT("MPI_Waitsome over null and inactive: outcount", outcount, MPI_UNDEFINED);
  outcount = -12345;
  CHECK_MPI(MPI_Testsome(3, rs, &outcount, indices, sts));
  EXPECT_INT("MPI_Testsome over null and inactive: outcount", outcount, MPI_UNDEFINED);
  if (rs[1] == MPI_REQUEST_NULL) fail("an inactive persistent request was freed");
  CHECK_MPI(MPI_Request_free(&rs[1]));
}

/* 2. and 3. */
static void several_done(void) {
  int a[4], b[4], never = -1, idx = -1, flag = -1, outcount = -1, indices[5];
  MPI_Request rs[5];
  MPI_Status st, sts[5];
  rs[0] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Recv_init(&never, 1, MPI_INT, rank, TAG_NEVER, MPI_COMM_WORLD, &rs[1]));
  CHECK_MPI(MPI_Irecv(a, 4, MPI_INT, rank, TAG_A, MPI_COMM_WORLD, &rs[2]));
  CHECK_MPI(MPI_Irecv(b, 4, MPI_INT, rank, TAG_B, MPI_COMM_WORLD, &rs[3]));
  rs[4] = MPI_REQUEST_NULL;

  /* 3: nothing sent yet. */
  CHECK_MPI(MPI_Testsome(5, rs, &outcount, indices, sts));
  EXPECT_INT("MPI_Testsome with nothing done: outcount", outcount, 0);
  CHECK_MPI(MPI_Testany(5, rs, &idx, &flag, &st));
  EXPECT_INT("MPI_Testany with nothing done: flag", flag, 0);
  EXPECT_INT("MPI_Testany with nothing done: index", idx, MPI_UNDEFINED);
  if (rs[2] == MPI_REQUEST_NULL || rs[3] == MPI_REQUEST_NULL)
    fail("a test with nothing done changed a request");

  /* 2. */
  send_ints(3, 100, rank, TAG_A);
  send_ints(2, 200, rank, TAG_B);
  CHECK_MPI(MPI_Waitany(5, rs, &idx, &st));
  if (idx != 2 && idx != 3) fail("MPI_Waitany with two done: index %d, expected 2 or 3", idx);
  if (rs[idx] != MPI_REQUEST_NULL) fail("MPI_Waitany did not free request %d", idx);
  expect_status("MPI_Waitany with two done", &st, rank, idx == 2 ? TAG_A : TAG_B, MPI_INT,
                idx == 2 ? 3 : 2);
  int other = idx == 2 ? 3 : 2;
  do {
    CHECK_MPI(MPI_Testsome(5, rs, &outcount, indices, sts));
  } while (outcount == 0);
  EXPECT_INT("MPI_Testsome after MPI_Waitany: outcount", outcount, 1);
  EXPECT_INT("MPI_Testsome after MPI_Waitany: index", indices[0], other);
  expect_status("MPI_Testsome after MPI_Waitany", &sts[0], rank, other == 2 ? TAG_A : TAG_B,
                MPI_INT, other == 2 ? 3 : 2);
  EXPECT_INT("received with tag A", a[0] + a[2], 100 + 102);
  EXPECT_INT("received with tag B", b[0] + b[1], 200 + 201);
  CHECK_MPI(MPI_Request_free(&rs[1]));
}

/* 4. */
static void late_message(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int got[4], idx = -1, outcount = -1, indices[2];
  MPI_Request rs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st, sts[2];
  if (size < 2) return;
  for (int round = 0; round < 2; ++round) {
    CHECK_MPI(MPI_Irecv(got, 4, MPI_INT, next, TAG_LATE + round, MPI_COMM_WORLD, &rs[1]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    sleep_ms(100);
    send_ints(4, 7 * round, prev, TAG_LATE + round);
    if (round == 0) {
      CHECK_MPI(MPI_Waitany(2, rs, &idx, &st));
      EXPECT_INT("MPI_Waitany for a late message: index", idx, 1);
    } else {
      CHECK_MPI(MPI_Waitsome(2, rs, &outcount, indices, sts));
      EXPECT_INT("MPI_Waitsome for a late message: outcount", outcount, 1);
      EXPECT_INT("MPI_Waitsome for a late message: index", indices[0], 1);
      st = sts[0];
    }
    expect_status("a late message", &st, next, TAG_LATE + round, MPI_INT, 4);
    EXPECT_INT("a late message's data", got[3], 7 * round + 3);
  }
}

/* 5. */
static void persistent_in_array(void) {
  int got = -1, idx = -1;
  MPI_Request rs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st;
  CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, rank, TAG_PERSISTENT, MPI_COMM_WORLD, &rs[0]));
  for (int round = 0; round < 2; ++round) {
    CHECK_MPI(MPI_Start(&rs[0]));
    send_ints(1, 40 + round, rank, TAG_PERSISTENT);
    CHECK_MPI(MPI_Waitany(2, rs, &idx, &st));
    EXPECT_INT("MPI_Waitany over a persistent receive: index", idx, 0);
    EXPECT_INT("MPI_Waitany over a persistent receive: data", got, 40 + round);
    if (rs[0] == MPI_REQUEST_NULL) fail("a completed persistent request was freed");
    CHECK_MPI(MPI_Waitany(2, rs, &idx, &st));
    EXPECT_INT("MPI_Waitany over an inactive persistent receive: index", idx, MPI_UNDEFINED);
  }
  CHECK_MPI(MPI_Request_free(&rs[0]));
}

/* 6. */
static void cancelled(void) {
  int got = -1, outcount = -1, indices[1], flag = -1;
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, rank, TAG_NEVER, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK_MPI(MPI_Waitsome(1, &r, &outcount, indices, &st));
  EXPECT_INT("MPI_Waitsome over a cancelled receive: outcount", outcount, 1);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  EXPECT_INT("MPI_Test_cancelled after MPI_Waitsome", flag, 1);
  EXPECT_INT("a cancelled receive's buffer", got, -1);
}

/* 7. */
static int query_fn(void *extra, MPI_Status *st) {
  (void)extra;
  MPI_Status_set_elements(st, MPI_INT, 5);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = TAG_GREQ;
  return MPI_SUCCESS;
}
static int free_fn(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

static void generalized(void) {
  int got = -1, idx = -1, count = -1;
  MPI_Request rs[2];
  MPI_Status st;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &rs[0]));
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, rank, TAG_GREQ, MPI_COMM_WORLD, &rs[1]));
  send_ints(1, 77, rank, TAG_GREQ);
  CHECK_MPI(MPI_Waitany(2, rs, &idx, &st));
  EXPECT_INT("MPI_Waitany beside a pending generalized request: index", idx, 1);
  EXPECT_INT("MPI_Waitany beside a pending generalized request: data", got, 77);
  CHECK_MPI(MPI_Grequest_complete(rs[0]));
  CHECK_MPI(MPI_Waitany(2, rs, &idx, &st));
  EXPECT_INT("MPI_Waitany over a completed generalized request: index", idx, 0);
  EXPECT_INT("the generalized request's status: MPI_TAG", st.MPI_TAG, TAG_GREQ);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &count));
  EXPECT_INT("the generalized request's status: elements", count, 5);
  if (rs[0] != MPI_REQUEST_NULL) fail("MPI_Waitany did not free the generalized request");
}

/* 8. */
static void post_short_and_fitting(int *small, int *fits, MPI_Request rs[2], int source) {
  CHECK_MPI(MPI_Irecv(small, 1, MPI_INT, source, TAG_SHORT, MPI_COMM_WORLD, &rs[0]));
  CHECK_MPI(MPI_Irecv(fits, 4, MPI_INT, source, TAG_FITS, MPI_COMM_WORLD, &rs[1]));
}

static int error_class(int code) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(code, &cls));
  return cls;
}

static void free_if_set(MPI_Request *r) {
  /* The standard leaves open whether a failed request is freed. */
  if (*r != MPI_REQUEST_NULL) CHECK_MPI(MPI_Request_free(r));
}

/* From rank-1 (itself with one rank): Open MPI 4.1 detects no truncation of a message
 * to self. */
static void failures(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int small[1], fits[4], rc, idx = -1, outcount = -1, indices[2];
  MPI_Request rs[2];
  MPI_Status st, sts[2];
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  post_short_and_fitting(small, fits, rs, prev);
  send_ints(4, 0, next, TAG_SHORT);
  send_ints(4, 10, next, TAG_FITS);
  rc = MPI_Waitall(2, rs, sts);
  EXPECT_INT("MPI_Waitall with a truncated receive: error class", error_class(rc),
             MPI_ERR_IN_STATUS);
  EXPECT_INT("MPI_Waitall: the truncated receive's MPI_ERROR",
             error_class(sts[0].MPI_ERROR), MPI_ERR_TRUNCATE);
  EXPECT_INT("MPI_Waitall: the other receive's MPI_ERROR", sts[1].MPI_ERROR, MPI_SUCCESS);
  expect_status("MPI_Waitall: the other receive", &sts[1], prev, TAG_FITS, MPI_INT, 4);
  EXPECT_INT("MPI_Waitall: the other receive's data", fits[3], 13);
  free_if_set(&rs[0]);
  if (rs[1] != MPI_REQUEST_NULL) fail("MPI_Waitall did not free the receive that succeeded");

  post_short_and_fitting(small, fits, rs, prev);
  send_ints(4, 0, next, TAG_SHORT);
  send_ints(4, 20, next, TAG_FITS);
  int reported = 0;
  while (reported < 2) {
    rc = MPI_Waitsome(2, rs, &outcount, indices, sts);
    for (int k = 0; k < outcount; ++k) {
      if (indices[k] == 0) {
        EXPECT_INT("MPI_Waitsome with a truncated receive: error class", error_class(rc),
                   MPI_ERR_IN_STATUS);
        EXPECT_INT("MPI_Waitsome: the truncated receive's MPI_ERROR",
                   error_class(sts[k].MPI_ERROR), MPI_ERR_TRUNCATE);
        free_if_set(&rs[0]);
      } else {
        if (rc != MPI_SUCCESS) EXPECT_INT("MPI_Waitsome: MPI_ERROR", sts[k].MPI_ERROR, MPI_SUCCESS);
        expect_status("MPI_Waitsome: the other receive", &sts[k], prev, TAG_FITS, MPI_INT, 4);
        EXPECT_INT("MPI_Waitsome: the other receive's data", fits[3], 23);
      }
      ++reported;
    }
  }

  /* MPI_Waitany: the failed request's index and error; the other is left alone. */
  post_short_and_fitting(small, fits, rs, prev);
  send_ints(4, 0, next, TAG_SHORT);
  idx = -1;
  rc = MPI_Waitany(2, rs, &idx, &st);
  EXPECT_INT("MPI_Waitany with a truncated receive: error class", error_class(rc),
             MPI_ERR_TRUNCATE);
  EXPECT_INT("MPI_Waitany with a truncated receive: index", idx, 0);
  free_if_set(&rs[0]);
  if (rs[1] == MPI_REQUEST_NULL) fail("MPI_Waitany's failure freed the other request");
  send_ints(4, 30, next, TAG_FITS);
  CHECK_MPI(MPI_Wait(&rs[1], &st));
  expect_status("the request MPI_Waitany left", &st, prev, TAG_FITS, MPI_INT, 4);

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  null_and_inactive();
  several_done();
  late_message();
  persistent_in_array();
  cancelled();
  generalized();
  failures();
  finalize_and_report(size);
  return 0;
}

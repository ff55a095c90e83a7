/*
 * send_modes.c - the synchronous, ready and buffered send modes, and the
 * request-set completion calls.
 *
 * Every message is sent with 0, 2 and 50000 MPI_INTs (0, 8 and 200000
 * bytes). Element i of a message from rank s to rank d in test number t is a
 * hash of (s, d, t, i), so every receiver knows exactly what it must get.
 * Receive buffers have one guard element past the end that must stay
 * untouched. Every status is checked: MPI_SOURCE, MPI_TAG, MPI_Get_count, and
 * MPI_Get_elements (which must equal MPI_Get_count for MPI_INT).
 *
 * Checks:
 *   1. MPI_Ssend and MPI_Issend to self, with the matching MPI_Irecv posted
 *      first.
 *   2. MPI_Ssend and MPI_Issend to rank+1 around the ring, with the MPI_Irecv
 *      from rank-1 posted first (one rank: to self).
 *   3. MPI_Issend is synchronous: an MPI_Issend to rank+1 whose receive is
 *      only posted after an MPI_Barrier is not complete before the barrier
 *      (MPI_Testany gives flag false and index MPI_UNDEFINED and leaves the
 *      request alone); after the barrier the receive is posted and the
 *      MPI_Wait on the send completes.
 *   4. MPI_Rsend and MPI_Irsend to rank+1 once the MPI_Irecv is known to be
 *      posted: either by an MPI_Barrier after posting, or by a zero-byte
 *      "ready" message the receiver sends after posting its receive.
 *   5. MPI_Bsend and MPI_Ibsend with MPI_Buffer_attach: the attached buffer
 *      holds exactly one Bsend and one Ibsend of each size (each size plus
 *      MPI_BSEND_OVERHEAD). All six messages to rank+1 are started before any
 *      receive is posted; the send buffers are overwritten as soon as the
 *      sends are (locally) complete; the receives, in reverse order, must see
 *      the original data. MPI_Buffer_detach returns the attached address and
 *      size; the buffer is attached again and the whole round repeated.
 *   6. MPI_Sendrecv_replace shifts by every distance 0..size-1 in both
 *      directions; the buffer must then hold the source's data.
 *   7. MPI_Waitsome, MPI_Testsome and MPI_Testany over an array holding an
 *      MPI_REQUEST_NULL and an MPI_Irecv from every rank (each rank sends to
 *      every rank with MPI_Isend): every Irecv index is reported exactly once,
 *      its request set to MPI_REQUEST_NULL, its status and data right; the
 *      null entry is never reported; MPI_Waitsome reports at least one. Once
 *      all are MPI_REQUEST_NULL, MPI_Waitsome and MPI_Testsome give outcount
 *      MPI_UNDEFINED and MPI_Testany gives flag true and index MPI_UNDEFINED.
 *   8. Last of all: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, an MPI_Bsend
 *      of 200000 bytes to self with only 1000 bytes (+ MPI_BSEND_OVERHEAD)
 *      attached returns an error of class MPI_ERR_BUFFER; MPI_ERRORS_ARE_FATAL
 *      is set back; with 2 or more ranks an 8-byte MPI_Bsend to rank+1 through
 *      that buffer still works; MPI_Buffer_detach returns address and size.
 *      It comes last, and nothing is sent to self after it, because Open MPI
 *      (4.1) never delivers a later message from a rank to the destination of
 *      its failed send (the failed send used up a message sequence number).
 *
 * Prints "send_modes: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "send_modes"
#include "check.h"

#define NCOUNTS 3
static const int counts[NCOUNTS] = {0, 2, 50000}; /* MPI_INTs: 0, 8, 200000 bytes */
#define MAXCOUNT 50000
#define GUARD ((int)0x5a5a5a5a)

#define TAG_SSEND_SELF 100
#define TAG_ISSEND_SELF 110
#define TAG_SSEND_RING 200
#define TAG_ISSEND_RING 210
#define TAG_ISSEND_SYNC 300
#define TAG_RSEND_BARRIER 400
#define TAG_RSEND_READY 410
#define TAG_IRSEND 420
#define TAG_READY 430
#define TAG_BSEND 500
#define TAG_IBSEND 510
#define TAG_BSEND_SMALL 520
#define TAG_REPLACE 10000 /* + 10 * distance + count index */
#define TAG_SOME 700

static int rank, size, next, prev;
static unsigned test_no; /* advanced identically on every rank */

static int val(int src, int dst, unsigned t, int i) {
  uint64_t h = mix64(((uint64_t)t << 40) ^ ((uint64_t)(unsigned)src << 20) ^ (unsigned)dst);
  return (int)(uint32_t)mix64(h + (uint64_t)i);
}

static void fill(int *buf, int n, int src, int dst, unsigned t) {
  int i;
  for (i = 0; i < n; i++) buf[i] = val(src, dst, t, i);
}

/* A receive buffer of n elements plus the guard. */
static void clear_recv(int *buf, int n) {
  int i;
  for (i = 0; i < n; i++) buf[i] = ~val(-1, -1, 0, i);
  buf[n] = GUARD;
}

static void check_data(const char *what, const int *buf, int n, int src, int dst, unsigned t,
                       int guard) {
  int i;
  for (i = 0; i < n; i++) {
    int exp = val(src, dst, t, i);
    if (buf[i] != exp)
      fail("%s (%d ints): element %d: got %d, expected %d", what, n, i, buf[i], exp);
  }
  if (guard && buf[n] != GUARD)
    fail("%s (%d ints): element %d past the message was overwritten: got %d, expected %d", what, n,
         n, buf[n], GUARD);
}

/* The status of a receive of `count` MPI_INTs, MPI_Get_elements included. */
static void check_status(const char *what, const MPI_Status *st, int source, int tag, int count) {
  int elems = -1;
  char buf[200];
  snprintf(buf, sizeof buf, "%s (%d ints)", what, count);
  expect_status(buf, st, source, tag, MPI_INT, count);
  CHECK_MPI(MPI_Get_elements(st, MPI_INT, &elems));
  snprintf(buf, sizeof buf, "%s (%d ints): MPI_Get_elements", what, count);
  EXPECT_INT(buf, elems, count);
}

static void expect_null(const char *what, MPI_Request req) {
  if (req != MPI_REQUEST_NULL) fail("%s: request not set to MPI_REQUEST_NULL", what);
}

static int *sbuf, *rbuf;

/* 1 and 2. An MPI_Ssend and then an MPI_Issend of each count, to self or to rank+1 around the
 * ring (from rank-1), with the matching MPI_Irecv posted first. */
static void synchronous_sends(int to_self) {
  const char *where = to_self ? "to self" : "ring";
  int dst = to_self ? rank : next, src = to_self ? rank : prev;
  int ssend_tag = to_self ? TAG_SSEND_SELF : TAG_SSEND_RING;
  int issend_tag = to_self ? TAG_ISSEND_SELF : TAG_ISSEND_RING;
  int c;
  for (c = 0; c < NCOUNTS; c++) {
    int n = counts[c];
    unsigned t = ++test_no;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    char what[120];
    fill(sbuf, n, rank, dst, t);
    clear_recv(rbuf, n);
    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, src, ssend_tag, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Ssend(sbuf, n, MPI_INT, dst, ssend_tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&reqs[0], &sts[0]));
    if (to_self) expect_null("MPI_Ssend to self: MPI_Wait on the Irecv", reqs[0]);
    snprintf(what, sizeof what, "MPI_Ssend %s", where);
    check_data(what, rbuf, n, src, rank, t, 1);
    check_status(what, &sts[0], src, ssend_tag, n);

    t = ++test_no;
    fill(sbuf, n, rank, dst, t);
    clear_recv(rbuf, n);
    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, src, issend_tag, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Issend(sbuf, n, MPI_INT, dst, issend_tag, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Waitall(2, reqs, sts));
    snprintf(what, sizeof what, "MPI_Issend %s: MPI_Waitall, Irecv", where);
    expect_null(what, reqs[0]);
    snprintf(what, sizeof what, "MPI_Issend %s: MPI_Waitall, Issend", where);
    expect_null(what, reqs[1]);
    snprintf(what, sizeof what, "MPI_Issend %s", where);
    check_data(what, rbuf, n, src, rank, t, 1);
    check_status(what, &sts[0], src, issend_tag, n);
  }
}

/* 3. An MPI_Issend cannot complete before its receive is posted. */
static void issend_is_synchronous(void) {
  int c, k;
  for (c = 0; c < NCOUNTS; c++) {
    int n = counts[c];
    unsigned t = ++test_no;
    MPI_Request req;
    MPI_Status st;
    char what[120];
    snprintf(what, sizeof what, "MPI_Issend before the receive is posted (%d ints)", n);
    fill(sbuf, n, rank, next, t);
    clear_recv(rbuf, n);
    CHECK_MPI(MPI_Issend(sbuf, n, MPI_INT, next, TAG_ISSEND_SYNC, MPI_COMM_WORLD, &req));
    for (k = 0; k < 5; k++) {
      int index = -7, flag = -7;
      CHECK_MPI(MPI_Testany(1, &req, &index, &flag, &st));
      if (flag) fail("%s: MPI_Testany reports it complete (index %d)", what, index);
      EXPECT_INT("MPI_Testany on an incomplete MPI_Issend: index", index, MPI_UNDEFINED);
      if (req == MPI_REQUEST_NULL) fail("%s: MPI_Testany freed the incomplete request", what);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(rbuf, n, MPI_INT, prev, TAG_ISSEND_SYNC, MPI_COMM_WORLD, &st));
    check_data(what, rbuf, n, prev, rank, t, 1);
    check_status(what, &st, prev, TAG_ISSEND_SYNC, n);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect_null(what, req);
  }
}

/* Fills sbuf (n ints to rank+1, test t), posts the receive of n ints from rank-1 into rbuf
 * (reqs[0]), then tells rank-1 by a zero-byte "ready" message (reqs[1]) and waits for rank+1's:
 * after this, rank+1's receive is posted. */
static void post_and_exchange_ready(int n, unsigned t, int tag, MPI_Request *reqs, int *dummy) {
  MPI_Status st;
  fill(sbuf, n, rank, next, t);
  clear_recv(rbuf, n);
  CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(dummy, 0, MPI_INT, prev, TAG_READY, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Recv(dummy, 0, MPI_INT, next, TAG_READY, MPI_COMM_WORLD, &st));
  check_status("zero-byte ready message", &st, next, TAG_READY, 0);
}

/* 4. Ready sends once the receive is known to be posted. */
static void ready_sends(void) {
  int c;
  for (c = 0; c < NCOUNTS; c++) {
    int n = counts[c];
    unsigned t = ++test_no;
    MPI_Request reqs[3];
    MPI_Status sts[3];
    int dummy = 0;

    /* Barrier after posting. */
    fill(sbuf, n, rank, next, t);
    clear_recv(rbuf, n);
    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_INT, prev, TAG_RSEND_BARRIER, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(sbuf, n, MPI_INT, next, TAG_RSEND_BARRIER, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&reqs[0], &sts[0]));
    check_data("MPI_Rsend after MPI_Barrier", rbuf, n, prev, rank, t, 1);
    check_status("MPI_Rsend after MPI_Barrier", &sts[0], prev, TAG_RSEND_BARRIER, n);

    /* Zero-byte "ready" message from the receiver after posting. */
    t = ++test_no;
    post_and_exchange_ready(n, t, TAG_RSEND_READY, reqs, &dummy);
    CHECK_MPI(MPI_Rsend(sbuf, n, MPI_INT, next, TAG_RSEND_READY, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, reqs, sts));
    check_data("MPI_Rsend after a ready message", rbuf, n, prev, rank, t, 1);
    check_status("MPI_Rsend after a ready message", &sts[0], prev, TAG_RSEND_READY, n);

    /* MPI_Irsend, same handshake. */
    t = ++test_no;
    post_and_exchange_ready(n, t, TAG_IRSEND, reqs, &dummy);
    CHECK_MPI(MPI_Irsend(sbuf, n, MPI_INT, next, TAG_IRSEND, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    expect_null("MPI_Irsend: MPI_Waitall, Irecv", reqs[0]);
    expect_null("MPI_Irsend: MPI_Waitall, Irsend", reqs[2]);
    check_data("MPI_Irsend", rbuf, n, prev, rank, t, 1);
    check_status("MPI_Irsend", &sts[0], prev, TAG_IRSEND, n);
  }
}

static void detach_and_check(const char *what, void *addr, int bytes) {
  void *got_addr = NULL;
  int got_size = -1;
  char buf[160];
  CHECK_MPI(MPI_Buffer_detach(&got_addr, &got_size));
  if (got_addr != addr)
    fail("%s: MPI_Buffer_detach address: got %p, expected %p", what, got_addr, addr);
  snprintf(buf, sizeof buf, "%s: MPI_Buffer_detach size", what);
  EXPECT_INT(buf, got_size, bytes);
}

/* 5. Buffered sends. */
static void buffered_sends(void) {
  int isz = 0, c, round, bytes = 0;
  int *bs[NCOUNTS], *ibs[NCOUNTS], *in;
  char *attached;
  CHECK_MPI(MPI_Type_size(MPI_INT, &isz));
  EXPECT_INT("MPI_Type_size(MPI_INT)", isz, sizeof(int));
  for (c = 0; c < NCOUNTS; c++) {
    bytes += 2 * (counts[c] * isz + MPI_BSEND_OVERHEAD);
    bs[c] = xmalloc((size_t)counts[c] * sizeof(int));
    ibs[c] = xmalloc((size_t)counts[c] * sizeof(int));
  }
  in = xmalloc((MAXCOUNT + 1) * sizeof(int));
  attached = xmalloc((size_t)bytes);

  for (round = 0; round < 2; round++) {
    MPI_Request reqs[NCOUNTS];
    unsigned tb[NCOUNTS], tib[NCOUNTS];
    char what[120];
    CHECK_MPI(MPI_Buffer_attach(attached, bytes));
    /* Start all six before anybody posts a receive. */
    for (c = 0; c < NCOUNTS; c++) {
      tb[c] = ++test_no;
      fill(bs[c], counts[c], rank, next, tb[c]);
      CHECK_MPI(MPI_Bsend(bs[c], counts[c], MPI_INT, next, TAG_BSEND + c, MPI_COMM_WORLD));
      fill(bs[c], counts[c], -2, -2, tb[c]); /* the data must have been copied */
    }
    for (c = 0; c < NCOUNTS; c++) {
      tib[c] = ++test_no;
      fill(ibs[c], counts[c], rank, next, tib[c]);
      CHECK_MPI(
          MPI_Ibsend(ibs[c], counts[c], MPI_INT, next, TAG_IBSEND + c, MPI_COMM_WORLD, &reqs[c]));
    }
    CHECK_MPI(MPI_Waitall(NCOUNTS, reqs, MPI_STATUSES_IGNORE));
    for (c = 0; c < NCOUNTS; c++) {
      expect_null("MPI_Ibsend: MPI_Waitall", reqs[c]);
      fill(ibs[c], counts[c], -2, -2, tib[c]);
    }
    /* Receive them in reverse order. */
    for (c = NCOUNTS - 1; c >= 0; c--) {
      MPI_Status st;
      snprintf(what, sizeof what, "MPI_Ibsend ring round %d", round);
      clear_recv(in, counts[c]);
      CHECK_MPI(MPI_Recv(in, counts[c], MPI_INT, prev, TAG_IBSEND + c, MPI_COMM_WORLD, &st));
      check_data(what, in, counts[c], prev, rank, tib[c], 1);
      check_status(what, &st, prev, TAG_IBSEND + c, counts[c]);
      snprintf(what, sizeof what, "MPI_Bsend ring round %d", round);
      clear_recv(in, counts[c]);
      CHECK_MPI(MPI_Recv(in, counts[c], MPI_INT, prev, TAG_BSEND + c, MPI_COMM_WORLD, &st));
      check_data(what, in, counts[c], prev, rank, tb[c], 1);
      check_status(what, &st, prev, TAG_BSEND + c, counts[c]);
    }
    snprintf(what, sizeof what, "buffered sends round %d", round);
    detach_and_check(what, attached, bytes);
  }

  for (c = 0; c < NCOUNTS; c++) {
    free(bs[c]);
    free(ibs[c]);
  }
  free(in);
  free(attached);
}

/* 6. MPI_Sendrecv_replace shifts. */
static void sendrecv_replace(void) {
  int dir, d, c;
  for (dir = -1; dir <= 1; dir += 2) {
    for (d = 0; d < size; d++) {
      int dest = ((rank + dir * d) % size + size) % size;
      int src = ((rank - dir * d) % size + size) % size;
      for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], tag = TAG_REPLACE + 10 * d + c;
        unsigned t = ++test_no;
        MPI_Status st;
        char what[120];
        fill(rbuf, n, rank, dest, t);
        rbuf[n] = GUARD;
        CHECK_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_INT, dest, tag, src, tag, MPI_COMM_WORLD, &st));
        snprintf(what, sizeof what, "MPI_Sendrecv_replace shift by %d", dir * d);
        check_data(what, rbuf, n, src, rank, t, 1);
        check_status(what, &st, src, tag, n);
      }
    }
  }
}

/* 7. MPI_Waitsome / MPI_Testsome / MPI_Testany over receives from everybody. */
enum { M_WAITSOME, M_TESTSOME, M_TESTANY, NMETHODS };
static const char *const method_names[NMETHODS] = {"MPI_Waitsome", "MPI_Testsome", "MPI_Testany"};

static void request_sets(void) {
  int nreq = size + 1; /* entry 0 is MPI_REQUEST_NULL, entry r+1 receives from r */
  MPI_Request *rreqs = xmalloc((size_t)nreq * sizeof *rreqs);
  MPI_Request *sreqs = xmalloc((size_t)size * sizeof *sreqs);
  MPI_Status *sts = xmalloc((size_t)nreq * sizeof *sts);
  int *indices = xmalloc((size_t)nreq * sizeof *indices);
  int *seen = xmalloc((size_t)nreq * sizeof *seen);
  int **in = xmalloc((size_t)size * sizeof *in);
  int **out = xmalloc((size_t)size * sizeof *out);
  int m, c, r;
  for (r = 0; r < size; r++) {
    in[r] = xmalloc((MAXCOUNT + 1) * sizeof(int));
    out[r] = xmalloc(MAXCOUNT * sizeof(int));
  }
  for (m = 0; m < NMETHODS; m++) {
    for (c = 0; c < NCOUNTS; c++) {
      int n = counts[c], tag = TAG_SOME + 10 * m + c, done = 0, k;
      unsigned t = ++test_no;
      char what[160];
      rreqs[0] = MPI_REQUEST_NULL;
      for (r = 0; r <= size; r++) seen[r] = 0;
      for (r = 0; r < size; r++) {
        clear_recv(in[r], n);
        CHECK_MPI(MPI_Irecv(in[r], n, MPI_INT, r, tag, MPI_COMM_WORLD, &rreqs[r + 1]));
      }
      for (r = 0; r < size; r++) {
        fill(out[r], n, rank, r, t);
        CHECK_MPI(MPI_Isend(out[r], n, MPI_INT, r, tag, MPI_COMM_WORLD, &sreqs[r]));
      }
      while (done < size) {
        int outcount = -7;
        if (m == M_TESTANY) {
          int index = -7, flag = -7;
          CHECK_MPI(MPI_Testany(nreq, rreqs, &index, &flag, &sts[0]));
          if (!flag) {
            snprintf(what, sizeof what, "MPI_Testany (%d ints) with none complete: index", n);
            EXPECT_INT(what, index, MPI_UNDEFINED);
            continue;
          }
          if (index == MPI_UNDEFINED)
            fail("MPI_Testany (%d ints): flag true and index MPI_UNDEFINED with %d requests active",
                 n, size - done);
          indices[0] = index;
          outcount = 1;
        } else {
          if (m == M_WAITSOME)
            CHECK_MPI(MPI_Waitsome(nreq, rreqs, &outcount, indices, sts));
          else
            CHECK_MPI(MPI_Testsome(nreq, rreqs, &outcount, indices, sts));
          if (outcount == MPI_UNDEFINED)
            fail("%s (%d ints): outcount MPI_UNDEFINED with %d requests active", method_names[m], n,
                 size - done);
          if (outcount < (m == M_WAITSOME ? 1 : 0) || outcount > size - done)
            fail("%s (%d ints): outcount %d with %d requests active", method_names[m], n, outcount,
                 size - done);
        }
        for (k = 0; k < outcount; k++) {
          int i = indices[k];
          if (i < 1 || i > size)
            fail("%s (%d ints): reported index %d, expected one in 1..%d", method_names[m], n, i,
                 size);
          if (seen[i]) fail("%s (%d ints): index %d reported twice", method_names[m], n, i);
          seen[i] = 1;
          snprintf(what, sizeof what, "%s index %d", method_names[m], i);
          expect_null(what, rreqs[i]);
          check_data(what, in[i - 1], n, i - 1, rank, t, 1);
          check_status(what, &sts[k], i - 1, tag, n);
        }
        done += outcount;
      }
      /* Everything is MPI_REQUEST_NULL now. */
      {
        int outcount = -7, index = -7, flag = -7;
        snprintf(what, sizeof what, "MPI_Waitsome on all-null requests (%d ints): outcount", n);
        CHECK_MPI(MPI_Waitsome(nreq, rreqs, &outcount, indices, sts));
        EXPECT_INT(what, outcount, MPI_UNDEFINED);
        outcount = -7;
        snprintf(what, sizeof what, "MPI_Testsome on all-null requests (%d ints): outcount", n);
        CHECK_MPI(MPI_Testsome(nreq, rreqs, &outcount, indices, sts));
        EXPECT_INT(what, outcount, MPI_UNDEFINED);
        snprintf(what, sizeof what, "MPI_Testany on all-null requests (%d ints): flag", n);
        CHECK_MPI(MPI_Testany(nreq, rreqs, &index, &flag, &sts[0]));
        EXPECT_INT(what, flag != 0, 1);
        snprintf(what, sizeof what, "MPI_Testany on all-null requests (%d ints): index", n);
        EXPECT_INT(what, index, MPI_UNDEFINED);
      }
      CHECK_MPI(MPI_Waitall(size, sreqs, MPI_STATUSES_IGNORE));
    }
  }
  for (r = 0; r < size; r++) {
    free(in[r]);
    free(out[r]);
  }
  free(in);
  free(out);
  free(rreqs);
  free(sreqs);
  free(sts);
  free(indices);
  free(seen);
}

/* 8. A buffered send too big for the attached buffer. It is addressed to self
 * and is this rank's last message to itself: under Open MPI a failed send
 * still uses up the sequence number of the next message to its destination,
 * so nothing sent to that destination afterwards would ever be matched. */
static void bsend_too_big(void) {
  int small = 1000 + MPI_BSEND_OVERHEAD, rc, cls = -1, isz = 0;
  unsigned t = ++test_no;
  char *attached = xmalloc((size_t)small);
  CHECK_MPI(MPI_Type_size(MPI_INT, &isz));
  CHECK_MPI(MPI_Buffer_attach(attached, small));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  fill(sbuf, MAXCOUNT, rank, rank, t);
  rc = MPI_Bsend(sbuf, MAXCOUNT, MPI_INT, rank, TAG_BSEND_SMALL, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS)
    fail(
        "MPI_Bsend of %d bytes with %d bytes attached: got MPI_SUCCESS, expected an error of "
        "class MPI_ERR_BUFFER (%d)",
        MAXCOUNT * isz, small, MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  if (cls != MPI_ERR_BUFFER)
    fail(
        "MPI_Bsend of %d bytes with %d bytes attached: got error class %d, expected "
        "MPI_ERR_BUFFER (%d)",
        MAXCOUNT * isz, small, cls, MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* The buffer still works for what fits (to rank+1, so only with 2 or more
   * ranks). */
  if (size > 1) {
    MPI_Status st;
    t = ++test_no;
    fill(sbuf, 2, rank, next, t);
    CHECK_MPI(MPI_Bsend(sbuf, 2, MPI_INT, next, TAG_BSEND_SMALL + 1, MPI_COMM_WORLD));
    clear_recv(rbuf, 2);
    CHECK_MPI(MPI_Recv(rbuf, 2, MPI_INT, prev, TAG_BSEND_SMALL + 1, MPI_COMM_WORLD, &st));
    check_data("MPI_Bsend after the MPI_ERR_BUFFER", rbuf, 2, prev, rank, t, 1);
    check_status("MPI_Bsend after the MPI_ERR_BUFFER", &st, prev, TAG_BSEND_SMALL + 1, 2);
  }
  detach_and_check("small buffer", attached, small);
  free(attached);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  sbuf = xmalloc(MAXCOUNT * sizeof(int));
  rbuf = xmalloc((MAXCOUNT + 1) * sizeof(int));

  synchronous_sends(1);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  synchronous_sends(0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  issend_is_synchronous();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  ready_sends();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  buffered_sends();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  sendrecv_replace();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  request_sets();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  bsend_too_big();

  free(sbuf);
  free(rbuf);
  finalize_and_report(size);
  return 0;
}

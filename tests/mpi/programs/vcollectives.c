/*
 * vcollectives.c - the vector collectives, reduce-scatter and the prefix
 * reductions against a serial reference.
 *
 * Each rank's contribution is a deterministic function of (rank, element
 * index, call number), so every rank can compute what every other rank sent
 * and hence the exact expected result locally. Reduction inputs are small
 * integers for MPI_SUM, {1, 2, -1, 3} for MPI_PROD, eighth-integers for
 * MPI_MAX on double and (value, index) pairs with many equal values for
 * MPI_MAXLOC, so every result is exact whatever the reduction order and is
 * compared with ==.
 *
 * Counts depend on the rank, in three patterns, each with a zero count for
 * some rank (a one-rank run meets both zero and non-zero counts): small, small
 * with the blocks laid out in reverse rank order, and large (about 30000 ints
 * per block). Blocks are placed with gaps of one to three elements before,
 * between and after them; the gaps are filled with a marker that must still
 * be there afterwards. Receive buffers of the non-vector forms have a guard
 * past the end that must stay untouched, and send buffers must be unchanged.
 *
 * Checks, for MPI_COMM_WORLD (MPI_INT data for the data movement):
 *   - MPI_Gatherv at every root, normal and with MPI_IN_PLACE at the root
 *     (receive arguments are NULL at non-roots).
 *   - MPI_Scatterv from every root, normal and with recvbuf MPI_IN_PLACE at
 *     the root (send arguments are NULL at non-roots).
 *   - MPI_Allgatherv, normal and MPI_IN_PLACE.
 *   - MPI_Alltoallv with pair-dependent counts (some zero) and gapped send and
 *     receive layouts that differ.
 *   - MPI_Reduce_scatter with the unequal counts of each pattern, and
 *     MPI_Reduce_scatter_block with 0, 1, 5 and 3000 elements per rank, for
 *     MPI_SUM on MPI_INT, MPI_MAX on MPI_DOUBLE and MPI_SUM on MPI_SHORT,
 *     normal and MPI_IN_PLACE (input taken from recvbuf, result at its start).
 *   - MPI_Scan and MPI_Exscan with 1, 7 and 5000 elements for MPI_SUM and
 *     MPI_PROD on MPI_INT, MPI_MAX on MPI_DOUBLE and MPI_MAXLOC on MPI_2INT,
 *     normal and MPI_IN_PLACE. Rank 0's MPI_Exscan result is undefined and is
 *     not checked.
 *
 * Prints "vcollectives: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "vcollectives"
#include "check.h"

static int rank, size;
static unsigned call_no; /* advanced identically on every rank */

static uint64_t hv(int src, int dst, unsigned t, size_t i) {
  uint64_t h = mix64(((uint64_t)t << 40) ^ ((uint64_t)(unsigned)src << 20) ^ (unsigned)dst);
  return mix64(h + (uint64_t)i);
}

/* Element i of the block rank src sends to rank dst in call t. */
static int val(int src, int dst, unsigned t, int i) { return (int)(uint32_t)hv(src, dst, t, i); }

/* What a gap (or an unused element) holds. */
static int gapval(int i) { return (int)(0x6a09e667u ^ (uint32_t)i * 2654435761u); }

/* ---- counts and layouts ------------------------------------------------ */

#define NPATTERNS 3
static const char *const pattern_names[NPATTERNS] = {"small", "small reversed", "large"};

/* Count of rank r's block in pattern p; each pattern has a zero for some
 * rank. */
static int cnt(int r, int p) {
  switch (p) {
    case 0:
      return r % 3 == 1 ? 0 : r + 2;
    case 1:
      return r == size - 1 ? 0 : 2 * r + 1;
    default:
      return r % 2 == 1 ? 0 : 30000 + 1000 * r;
  }
}

/* Count of the Alltoallv block from s to d in pattern p. */
static int pair_cnt(int s, int d, int p) {
  switch (p) {
    case 0:
      return (s + 2 * d + 1) % 3 == 0 ? 0 : s + d + 1;
    case 1:
      return s == d && s % 2 == 1 ? 0 : 2 * s + d + (s == d ? 0 : 3);
    default:
      return (s + d) % 3 == 2 ? 0 : 20000 + 100 * s + 10 * d;
  }
}

/* Lays the blocks out in rank order (or reversed), with a gap of 1..3
 * elements before the first block and after every block. Returns the total
 * length. */
static int layout(const int *counts, int *displs, int reverse, int seed) {
  int pos = 1 + seed % 2, k;
  for (k = 0; k < size; k++) {
    int q = reverse ? size - 1 - k : k;
    displs[q] = pos;
    pos += counts[q] + 1 + (q + seed) % 3;
  }
  return pos;
}

static void fill_gaps(int *buf, int n) {
  int i;
  for (i = 0; i < n; i++) buf[i] = gapval(i);
}

/* Compares a whole gapped buffer; names the block (or gap) of a mismatch. */
static void compare_layout(const char *what, const int *got, const int *exp, int n,
                           const int *counts, const int *displs) {
  int i, r;
  for (i = 0; i < n; i++) {
    if (got[i] != exp[i]) {
      for (r = 0; r < size; r++)
        if (i >= displs[r] && i < displs[r] + counts[r])
          fail("%s: element %d (block of rank %d, element %d): got %d, expected %d", what, i, r,
               i - displs[r], got[i], exp[i]);
      fail("%s: element %d (a gap between blocks): got %d, expected %d (untouched)", what, i,
           got[i], exp[i]);
    }
  }
}

/* The gapped buffer that gathering every rank's block for `dst` in call t gives: rank r's
 * block (counts[r] elements val(r, dst, t, i)) at displs[r], gap values elsewhere. */
static void expect_gathered(int *exp, int total, const int *counts, const int *displs, int dst,
                            unsigned t) {
  int r, i;
  fill_gaps(exp, total);
  for (r = 0; r < size; r++)
    for (i = 0; i < counts[r]; i++) exp[displs[r] + i] = val(r, dst, t, i);
}

/* This rank's send buffer of n elements for `dst` in call t must be unchanged. */
static void check_send_block(const char *what, const int *sbuf, int n, int dst, unsigned t) {
  int i;
  for (i = 0; i < n; i++)
    if (sbuf[i] != val(rank, dst, t, i))
      fail("%s: send buffer: element %d: got %d, expected %d", what, i, sbuf[i],
           val(rank, dst, t, i));
}

/* ---- data movement ------------------------------------------------------ */

static int counts[64], displs[64], rcounts[64], rdispls[64];

static void test_gatherv(int p, int inplace) {
  int root;
  char what[160];
  for (root = 0; root < size; root++) {
    unsigned t = ++call_no;
    int total = 0, n, r, i;
    int *sbuf, *rbuf = NULL, *exp;
    for (r = 0; r < size; r++) counts[r] = cnt(r, p);
    total = layout(counts, displs, p == 1, root);
    n = counts[rank];
    sbuf = xmalloc((size_t)n * sizeof(int));
    exp = xmalloc((size_t)total * sizeof(int));
    for (i = 0; i < n; i++) sbuf[i] = val(rank, root, t, i);
    expect_gathered(exp, total, counts, displs, root, t);
    if (rank == root) {
      rbuf = xmalloc((size_t)total * sizeof(int));
      fill_gaps(rbuf, total);
      if (inplace) memcpy(rbuf + displs[rank], sbuf, (size_t)n * sizeof(int));
    }
    CHECK_MPI(MPI_Gatherv(inplace && rank == root ? MPI_IN_PLACE : sbuf, n, MPI_INT, rbuf,
                          rank == root ? counts : NULL, rank == root ? displs : NULL, MPI_INT, root,
                          MPI_COMM_WORLD));
    snprintf(what, sizeof what, "MPI_Gatherv%s, %s counts, root %d",
             inplace ? " (MPI_IN_PLACE at root)" : "", pattern_names[p], root);
    if (rank == root) compare_layout(what, rbuf, exp, total, counts, displs);
    check_send_block(what, sbuf, n, root, t);
    free(sbuf);
    free(rbuf);
    free(exp);
  }
}

static void test_scatterv(int p, int inplace) {
  int root;
  char what[160];
  for (root = 0; root < size; root++) {
    unsigned t = ++call_no;
    int total, n, r, i;
    int *sbuf = NULL, *rbuf, *exp_send, *exp_recv;
    for (r = 0; r < size; r++) counts[r] = cnt(r, p);
    total = layout(counts, displs, p == 1, root + 1);
    n = counts[rank];
    exp_send = xmalloc((size_t)total * sizeof(int));
    fill_gaps(exp_send, total);
    for (r = 0; r < size; r++)
      for (i = 0; i < counts[r]; i++) exp_send[displs[r] + i] = val(root, r, t, i);
    if (rank == root) {
      sbuf = xmalloc((size_t)total * sizeof(int));
      memcpy(sbuf, exp_send, (size_t)total * sizeof(int));
    }
    /* Receive into rbuf + 1, with a guard each side. */
    rbuf = xmalloc((size_t)(n + 2) * sizeof(int));
    exp_recv = xmalloc((size_t)(n + 2) * sizeof(int));
    fill_gaps(rbuf, n + 2);
    fill_gaps(exp_recv, n + 2);
    if (!(inplace && rank == root))
      for (i = 0; i < n; i++) exp_recv[1 + i] = val(root, rank, t, i);
    CHECK_MPI(MPI_Scatterv(sbuf, rank == root ? counts : NULL, rank == root ? displs : NULL,
                           MPI_INT, inplace && rank == root ? MPI_IN_PLACE : rbuf + 1, n, MPI_INT,
                           root, MPI_COMM_WORLD));
    snprintf(what, sizeof what, "MPI_Scatterv%s, %s counts, root %d",
             inplace ? " (MPI_IN_PLACE at root)" : "", pattern_names[p], root);
    if (!(inplace && rank == root)) {
      for (i = 0; i < n + 2; i++) {
        if (rbuf[i] != exp_recv[i]) {
          if (i == 0 || i == n + 1)
            fail("%s: guard %s the %d received ints: got %d, expected %d (untouched)", what,
                 i == 0 ? "before" : "after", n, rbuf[i], exp_recv[i]);
          fail("%s: element %d: got %d, expected %d", what, i - 1, rbuf[i], exp_recv[i]);
        }
      }
    }
    if (rank == root) {
      strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
      compare_layout(what, sbuf, exp_send, total, counts, displs);
    }
    free(sbuf);
    free(rbuf);
    free(exp_send);
    free(exp_recv);
  }
}

static void test_allgatherv(int p, int inplace) {
  unsigned t = ++call_no;
  int total, n, r, i;
  int *sbuf, *rbuf, *exp;
  char what[160];
  for (r = 0; r < size; r++) counts[r] = cnt(r, p);
  total = layout(counts, displs, p == 1, 2);
  n = counts[rank];
  sbuf = xmalloc((size_t)n * sizeof(int));
  rbuf = xmalloc((size_t)total * sizeof(int));
  exp = xmalloc((size_t)total * sizeof(int));
  for (i = 0; i < n; i++) sbuf[i] = val(rank, size, t, i);
  expect_gathered(exp, total, counts, displs, size, t);
  fill_gaps(rbuf, total);
  if (inplace) memcpy(rbuf + displs[rank], sbuf, (size_t)n * sizeof(int));
  CHECK_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT,
                           MPI_COMM_WORLD));
  snprintf(what, sizeof what, "MPI_Allgatherv%s, %s counts", inplace ? " (MPI_IN_PLACE)" : "",
           pattern_names[p]);
  compare_layout(what, rbuf, exp, total, counts, displs);
  check_send_block(what, sbuf, n, size, t);
  free(sbuf);
  free(rbuf);
  free(exp);
}

static void test_alltoallv(int p) {
  unsigned t = ++call_no;
  int stotal, rtotal, r, i;
  int *sbuf, *rbuf, *exp_send, *exp_recv;
  char what[160];
  for (r = 0; r < size; r++) {
    counts[r] = pair_cnt(rank, r, p);  /* send counts */
    rcounts[r] = pair_cnt(r, rank, p); /* receive counts */
  }
  stotal = layout(counts, displs, p != 1, rank);
  rtotal = layout(rcounts, rdispls, p == 1, rank + 1);
  sbuf = xmalloc((size_t)stotal * sizeof(int));
  exp_send = xmalloc((size_t)stotal * sizeof(int));
  rbuf = xmalloc((size_t)rtotal * sizeof(int));
  exp_recv = xmalloc((size_t)rtotal * sizeof(int));
  fill_gaps(exp_send, stotal);
  for (r = 0; r < size; r++)
    for (i = 0; i < counts[r]; i++) exp_send[displs[r] + i] = val(rank, r, t, i);
  memcpy(sbuf, exp_send, (size_t)stotal * sizeof(int));
  expect_gathered(exp_recv, rtotal, rcounts, rdispls, rank, t);
  fill_gaps(rbuf, rtotal);
  CHECK_MPI(MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                          MPI_COMM_WORLD));
  snprintf(what, sizeof what, "MPI_Alltoallv, %s counts", pattern_names[p]);
  compare_layout(what, rbuf, exp_recv, rtotal, rcounts, rdispls);
  strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
  compare_layout(what, sbuf, exp_send, stotal, counts, displs);
  free(sbuf);
  free(rbuf);
  free(exp_send);
  free(exp_recv);
}

/* ---- reductions --------------------------------------------------------- */

typedef struct {
  int v, loc;
} int2;

enum { R_INT_SUM, R_INT_PROD, R_DOUBLE_MAX, R_SHORT_SUM, R_2INT_MAXLOC, NROPS };

struct rop {
  const char *name;
  MPI_Datatype dt;
  MPI_Op op;
  size_t esize;
};
static struct rop rops[NROPS];

static void init_rops(void) {
  rops[R_INT_SUM] = (struct rop){"MPI_SUM on MPI_INT", MPI_INT, MPI_SUM, sizeof(int)};
  rops[R_INT_PROD] = (struct rop){"MPI_PROD on MPI_INT", MPI_INT, MPI_PROD, sizeof(int)};
  rops[R_DOUBLE_MAX] = (struct rop){"MPI_MAX on MPI_DOUBLE", MPI_DOUBLE, MPI_MAX, sizeof(double)};
  rops[R_SHORT_SUM] = (struct rop){"MPI_SUM on MPI_SHORT", MPI_SHORT, MPI_SUM, sizeof(short)};
  rops[R_2INT_MAXLOC] = (struct rop){"MPI_MAXLOC on MPI_2INT", MPI_2INT, MPI_MAXLOC, sizeof(int2)};
}

/* Rank who's contribution to call t. */
static void rop_fill(int k, void *buf, int n, int who, unsigned t) {
  static const int prod[6] = {1, 2, -1, 1, 3, 1};
  int i;
  for (i = 0; i < n; i++) {
    uint64_t h = hv(who, -1, t, (size_t)i);
    switch (k) {
      case R_INT_SUM:
        ((int *)buf)[i] = (int)(h % 41) - 20;
        break;
      case R_INT_PROD:
        ((int *)buf)[i] = prod[h % 6];
        break;
      case R_DOUBLE_MAX:
        ((double *)buf)[i] = ((int)(h % 200001) - 100000) * 0.125;
        break;
      case R_SHORT_SUM:
        ((short *)buf)[i] = (short)((int)(h % 41) - 20);
        break;
      default:
        ((int2 *)buf)[i].v = (int)(h % 3);
        ((int2 *)buf)[i].loc = (int)((h >> 20) % 101) - 50;
        break;
    }
  }
}

static void rop_combine(int k, void *acc, const void *in, int n) {
  int i;
  for (i = 0; i < n; i++) {
    switch (k) {
      case R_INT_SUM:
        ((int *)acc)[i] += ((const int *)in)[i];
        break;
      case R_INT_PROD:
        ((int *)acc)[i] *= ((const int *)in)[i];
        break;
      case R_DOUBLE_MAX: {
        double a = ((double *)acc)[i], b = ((const double *)in)[i];
        ((double *)acc)[i] = b > a ? b : a;
        break;
      }
      case R_SHORT_SUM:
        ((short *)acc)[i] = (short)(((short *)acc)[i] + ((const short *)in)[i]);
        break;
      default: {
        int2 *a = &((int2 *)acc)[i];
        const int2 *b = &((const int2 *)in)[i];
        if (b->v > a->v || (b->v == a->v && b->loc < a->loc)) *a = *b;
        break;
      }
    }
  }
}

static void rop_fmt(int k, const void *buf, int i, char *out, size_t len) {
  switch (k) {
    case R_INT_SUM:
    case R_INT_PROD:
      snprintf(out, len, "%d", ((const int *)buf)[i]);
      break;
    case R_DOUBLE_MAX:
      snprintf(out, len, "%.17g", ((const double *)buf)[i]);
      break;
    case R_SHORT_SUM:
      snprintf(out, len, "%d", ((const short *)buf)[i]);
      break;
    default:
      snprintf(out, len, "(%d, %d)", ((const int2 *)buf)[i].v, ((const int2 *)buf)[i].loc);
      break;
  }
}

static int rop_eq(int k, const void *a, const void *b, int i) {
  switch (k) {
    case R_INT_SUM:
    case R_INT_PROD:
      return ((const int *)a)[i] == ((const int *)b)[i];
    case R_DOUBLE_MAX:
      return ((const double *)a)[i] == ((const double *)b)[i];
    case R_SHORT_SUM:
      return ((const short *)a)[i] == ((const short *)b)[i];
    default:
      return ((const int2 *)a)[i].v == ((const int2 *)b)[i].v &&
             ((const int2 *)a)[i].loc == ((const int2 *)b)[i].loc;
  }
}

static void rop_compare(int k, const char *what, const void *got, const void *exp, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (!rop_eq(k, got, exp, i)) {
      char g[64], e[64];
      rop_fmt(k, got, i, g, sizeof g);
      rop_fmt(k, exp, i, e, sizeof e);
      fail("%s: element %d: got %s, expected %s", what, i, g, e);
    }
  }
}

/* Reference reduction of the contributions of ranks 0..upto-1. */
static void rop_reference(int k, void *ref, void *tmp, int n, int upto, unsigned t) {
  int r;
  rop_fill(k, ref, n, 0, t);
  for (r = 1; r < upto; r++) {
    rop_fill(k, tmp, n, r, t);
    rop_combine(k, ref, tmp, n);
  }
}

#define GUARD_ELEMS 4
#define GUARD_BYTE 0xa5

static void check_guard(const char *what, const void *buf, size_t esize, int n) {
  const unsigned char *g = (const unsigned char *)buf + (size_t)n * esize;
  size_t j;
  for (j = 0; j < GUARD_ELEMS * esize; j++)
    if (g[j] != GUARD_BYTE)
      fail("%s: byte %zu past the %d result elements was overwritten: got 0x%02x, expected 0x%02x",
           what, j, n, g[j], GUARD_BYTE);
}

/* The buffers of one reduction of n elements of rops[k] in call t: sbuf holds this rank's
 * contribution and copy a copy of it; rbuf, with GUARD_ELEMS elements of GUARD_BYTE past
 * its end, is GUARD_BYTE throughout or, in place, starts with the contribution; ref and
 * tmp are for rop_reference. */
struct rbufs {
  void *sbuf, *copy, *rbuf, *ref, *tmp;
};

static void alloc_rbufs(struct rbufs *b, int k, int n, unsigned t, int inplace) {
  size_t esize = rops[k].esize;
  b->sbuf = xmalloc((size_t)n * esize);
  b->copy = xmalloc((size_t)n * esize);
  b->rbuf = xmalloc((size_t)(n + GUARD_ELEMS) * esize);
  b->ref = xmalloc((size_t)n * esize);
  b->tmp = xmalloc((size_t)n * esize);
  rop_fill(k, b->sbuf, n, rank, t);
  memcpy(b->copy, b->sbuf, (size_t)n * esize);
  memset(b->rbuf, GUARD_BYTE, (size_t)(n + GUARD_ELEMS) * esize);
  if (inplace) memcpy(b->rbuf, b->sbuf, (size_t)n * esize);
}

static void free_rbufs(struct rbufs *b) {
  free(b->sbuf);
  free(b->copy);
  free(b->rbuf);
  free(b->ref);
  free(b->tmp);
}

/* One MPI_Reduce_scatter (block < 0, recvcounts from pattern p) or
 * MPI_Reduce_scatter_block (block elements per rank). */
static void test_reduce_scatter(int k, int p, int block, int inplace) {
  const struct rop *o = &rops[k];
  unsigned t = ++call_no;
  int total = 0, off = 0, n, r;
  struct rbufs b;
  char what[200];
  for (r = 0; r < size; r++) {
    counts[r] = block >= 0 ? block : cnt(r, p);
    if (r < rank) off += counts[r];
    total += counts[r];
  }
  n = counts[rank];
  alloc_rbufs(&b, k, total, t, inplace);
  if (block >= 0) {
    CHECK_MPI(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : b.sbuf, b.rbuf, block, o->dt, o->op,
                                       MPI_COMM_WORLD));
    snprintf(what, sizeof what, "MPI_Reduce_scatter_block%s %s, %d per rank",
             inplace ? " (MPI_IN_PLACE)" : "", o->name, block);
  } else {
    CHECK_MPI(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : b.sbuf, b.rbuf, counts, o->dt, o->op,
                                 MPI_COMM_WORLD));
    snprintf(what, sizeof what, "MPI_Reduce_scatter%s %s, %s counts",
             inplace ? " (MPI_IN_PLACE)" : "", o->name, pattern_names[p]);
  }
  rop_reference(k, b.ref, b.tmp, total, size, t);
  rop_compare(k, what, b.rbuf, (char *)b.ref + (size_t)off * o->esize, n);
  if (!inplace) {
    check_guard(what, b.rbuf, o->esize, n);
    strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
    rop_compare(k, what, b.sbuf, b.copy, total);
  } else {
    check_guard(what, b.rbuf, o->esize, total);
  }
  free_rbufs(&b);
}

static void test_scan(int k, int n, int exclusive, int inplace) {
  const struct rop *o = &rops[k];
  unsigned t = ++call_no;
  struct rbufs b;
  char what[200];
  alloc_rbufs(&b, k, n, t, inplace);
  if (exclusive)
    CHECK_MPI(MPI_Exscan(inplace ? MPI_IN_PLACE : b.sbuf, b.rbuf, n, o->dt, o->op, MPI_COMM_WORLD));
  else
    CHECK_MPI(MPI_Scan(inplace ? MPI_IN_PLACE : b.sbuf, b.rbuf, n, o->dt, o->op, MPI_COMM_WORLD));
  snprintf(what, sizeof what, "%s%s %s count %d", exclusive ? "MPI_Exscan" : "MPI_Scan",
           inplace ? " (MPI_IN_PLACE)" : "", o->name, n);
  if (!exclusive || rank > 0) {
    rop_reference(k, b.ref, b.tmp, n, exclusive ? rank : rank + 1, t);
    rop_compare(k, what, b.rbuf, b.ref, n);
    check_guard(what, b.rbuf, o->esize, n);
  }
  if (!inplace) {
    strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
    rop_compare(k, what, b.sbuf, b.copy, n);
  }
  free_rbufs(&b);
}

int main(int argc, char **argv) {
  static const int rs_kinds[3] = {R_INT_SUM, R_DOUBLE_MAX, R_SHORT_SUM};
  static const int rs_blocks[4] = {0, 1, 5, 3000};
  static const int scan_kinds[4] = {R_INT_SUM, R_INT_PROD, R_DOUBLE_MAX, R_2INT_MAXLOC};
  static const int scan_counts[3] = {1, 7, 5000};
  int p, inplace, j, m, ex;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > 64) fail("this program supports up to 64 ranks, not %d", size);
  init_rops();

  for (p = 0; p < NPATTERNS; p++) {
    for (inplace = 0; inplace <= 1; inplace++) {
      test_gatherv(p, inplace);
      test_scatterv(p, inplace);
      test_allgatherv(p, inplace);
    }
    test_alltoallv(p);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  for (j = 0; j < 3; j++) {
    for (inplace = 0; inplace <= 1; inplace++) {
      for (p = 0; p < NPATTERNS; p++) test_reduce_scatter(rs_kinds[j], p, -1, inplace);
      for (m = 0; m < 4; m++) test_reduce_scatter(rs_kinds[j], 0, rs_blocks[m], inplace);
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  for (j = 0; j < 4; j++)
    for (m = 0; m < 3; m++)
      for (ex = 0; ex <= 1; ex++)
        for (inplace = 0; inplace <= 1; inplace++)
          test_scan(scan_kinds[j], scan_counts[m], ex, inplace);

  finalize_and_report(size);
  return 0;
}

/*
 * user_ops.c - user-defined reduction operations (MPI_Op_create).
 *
 * Two operations:
 *   - "isum", commutative: the elementwise sum, on MPI_INT and MPI_LONG_LONG
 *     (the function dispatches on the datatype it is handed, and fails on
 *     any other). Checked against MPI_SUM on the same data and against a
 *     serial reference.
 *   - "compose", non-commutative: each MPI_2INT element {a, b} is the affine
 *     map x -> a*x + b modulo 2^32, and L op R is the composition L(R(x)),
 *     {aL*aR, aL*bR + bL}. Composition is associative but not commutative,
 *     so the result is exact and depends on the order of the ranks: it is
 *     checked against the serial x0 op x1 op ... op x(n-1) in rank order,
 *     and the reference is checked to differ from the reverse order (so the
 *     check would see a reordering). The function fails on any datatype but
 *     MPI_2INT.
 *
 * Checks, with counts 1, 5 and 1000:
 *   - MPI_Reduce at every root, normal and with MPI_IN_PLACE at the root
 *     (recvbuf is NULL at non-roots);
 *   - MPI_Allreduce, normal and MPI_IN_PLACE;
 *   - send buffers are unchanged by the (non-in-place) reductions;
 *   - MPI_Op_commutative: 1 for isum and MPI_SUM, 0 for compose;
 *   - MPI_Op_free sets the handle to MPI_OP_NULL; freeing a predefined
 *     operation (a copy of MPI_SUM) fails with MPI_ERR_OP under
 *     MPI_ERRORS_RETURN.
 *
 * Prints "user_ops: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "user_ops"
#include "check.h"

static int rank, size;
static unsigned call_no;

static uint64_t hv(int who, size_t k, unsigned salt) {
  return mix64(mix64(((uint64_t)salt << 32) ^ (uint64_t)(unsigned)who) + k);
}

/* ---- isum: commutative ------------------------------------------------- */

static void isum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  int k;
  if (*len < 0) fail("isum: called with len %d", *len);
  if (*dt == MPI_INT) {
    const int *a = in;
    int *b = inout;
    for (k = 0; k < *len; k++) b[k] = a[k] + b[k];
  } else if (*dt == MPI_LONG_LONG) {
    const long long *a = in;
    long long *b = inout;
    for (k = 0; k < *len; k++) b[k] = a[k] + b[k];
  } else {
    fail("isum: called with a datatype that is neither MPI_INT nor MPI_LONG_LONG");
  }
}

/* Values small enough that no sum of 4 overflows an int. */
static void fill_int(int *b, size_t n, int who, unsigned salt) {
  size_t k;
  for (k = 0; k < n; k++) b[k] = (int)(hv(who, k, salt) % 2000001) - 1000000;
}

static void fill_ll(long long *b, size_t n, int who, unsigned salt) {
  size_t k;
  for (k = 0; k < n; k++) b[k] = (long long)(hv(who, k, salt) % 2000000000001ULL) - 1000000000000LL;
}

struct sum_type {
  const char *name;
  MPI_Datatype dt;
  size_t elem;
};

static void fill_sum(const struct sum_type *t, void *b, size_t n, int who, unsigned salt) {
  if (t->dt == MPI_INT)
    fill_int(b, n, who, salt);
  else
    fill_ll(b, n, who, salt);
}

static void ref_sum(const struct sum_type *t, void *ref, void *tmp, size_t n, unsigned salt) {
  int r;
  size_t k;
  fill_sum(t, ref, n, 0, salt);
  for (r = 1; r < size; r++) {
    fill_sum(t, tmp, n, r, salt);
    for (k = 0; k < n; k++) {
      if (t->dt == MPI_INT)
        ((int *)ref)[k] += ((int *)tmp)[k];
      else
        ((long long *)ref)[k] += ((long long *)tmp)[k];
    }
  }
}

static void check_sum(const struct sum_type *t, const void *got, const void *exp, size_t n,
                      const char *what) {
  size_t k;
  for (k = 0; k < n; k++) {
    long long g = t->dt == MPI_INT ? ((const int *)got)[k] : ((const long long *)got)[k];
    long long e = t->dt == MPI_INT ? ((const int *)exp)[k] : ((const long long *)exp)[k];
    if (g != e)
      fail("%s %s count %zu: element %zu: got %lld, expected %lld", what, t->name, n, k, g, e);
  }
}

/* Once `send` holds this rank's contribution: copies it to orig (to check afterwards that
 * the send buffer is unchanged) and, on a rank that gets the result, sets recv to the
 * contribution for an in-place reduction and to junk (0x5a bytes) for any other. */
static void prepare_buffers(const void *send, void *orig, void *recv, size_t bytes, int inplace,
                            int gets_result) {
  memcpy(orig, send, bytes);
  if (!gets_result) return;
  if (inplace)
    memcpy(recv, send, bytes);
  else
    memset(recv, 0x5a, bytes);
}

/* Reduces the same contributions with `op` and with MPI_SUM; both must match
 * the serial reference. */
static void test_isum(const struct sum_type *t, size_t n, MPI_Op op) {
  size_t bytes = n * t->elem;
  void *send = xmalloc(bytes), *orig = xmalloc(bytes), *recv = xmalloc(bytes);
  void *with_sum = xmalloc(bytes), *ref = xmalloc(bytes), *tmp = xmalloc(bytes);
  int root, inplace;
  char what[200];

  for (inplace = 0; inplace <= 1; inplace++) {
    for (root = 0; root < size; root++) {
      unsigned salt = ++call_no;
      const void *sendbuf = inplace && rank == root ? MPI_IN_PLACE : send;
      fill_sum(t, send, n, rank, salt);
      prepare_buffers(send, orig, recv, bytes, inplace, rank == root);
      CHECK_MPI(
          MPI_Reduce(sendbuf, rank == root ? recv : NULL, (int)n, t->dt, op, root, MPI_COMM_WORLD));
      if (!inplace && memcmp(send, orig, bytes) != 0)
        fail("MPI_Reduce with isum on %s count %zu changed the send buffer", t->name, n);
      CHECK_MPI(MPI_Reduce(send, rank == root ? with_sum : NULL, (int)n, t->dt, MPI_SUM, root,
                           MPI_COMM_WORLD));
      if (rank == root) {
        ref_sum(t, ref, tmp, n, salt);
        snprintf(what, sizeof what, "MPI_Reduce%s isum root %d",
                 inplace ? " (MPI_IN_PLACE at root)" : "", root);
        check_sum(t, recv, ref, n, what);
        snprintf(what, sizeof what, "MPI_Reduce MPI_SUM root %d", root);
        check_sum(t, with_sum, ref, n, what);
        snprintf(what, sizeof what, "MPI_Reduce%s isum against MPI_SUM, root %d",
                 inplace ? " (MPI_IN_PLACE at root)" : "", root);
        check_sum(t, recv, with_sum, n, what);
      }
    }

    {
      unsigned salt = ++call_no;
      fill_sum(t, send, n, rank, salt);
      prepare_buffers(send, orig, recv, bytes, inplace, 1);
      CHECK_MPI(
          MPI_Allreduce(inplace ? MPI_IN_PLACE : send, recv, (int)n, t->dt, op, MPI_COMM_WORLD));
      if (memcmp(send, orig, bytes) != 0)
        fail("MPI_Allreduce with isum on %s count %zu changed the send buffer", t->name, n);
      CHECK_MPI(MPI_Allreduce(send, with_sum, (int)n, t->dt, MPI_SUM, MPI_COMM_WORLD));
      ref_sum(t, ref, tmp, n, salt);
      snprintf(what, sizeof what, "MPI_Allreduce%s isum", inplace ? " (MPI_IN_PLACE)" : "");
      check_sum(t, recv, ref, n, what);
      check_sum(t, with_sum, ref, n, "MPI_Allreduce MPI_SUM");
    }
  }
  free(send);
  free(orig);
  free(recv);
  free(with_sum);
  free(ref);
  free(tmp);
}

/* ---- compose: non-commutative ------------------------------------------ */

/* MPI_2INT's layout: struct { int v; int i; }; here {a, b} of x -> a*x + b. */
struct affine {
  int a;
  int b;
};

/* L(R(x)) modulo 2^32, computed unsigned so that wrapping is defined. */
static struct affine then(struct affine l, struct affine r) {
  struct affine out;
  uint32_t la = (uint32_t)l.a, lb = (uint32_t)l.b, ra = (uint32_t)r.a, rb = (uint32_t)r.b;
  uint32_t a = la * ra, b = la * rb + lb;
  memcpy(&out.a, &a, sizeof a);
  memcpy(&out.b, &b, sizeof b);
  return out;
}

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt) {
  const struct affine *l = in;
  struct affine *r = inout;
  int k;
  if (*dt != MPI_2INT) fail("compose: called with a datatype other than MPI_2INT");
  if (*len < 0) fail("compose: called with len %d", *len);
  /* inoutvec[k] = invec[k] op inoutvec[k], invec being the lower ranks'. */
  for (k = 0; k < *len; k++) r[k] = then(l[k], r[k]);
}

static void fill_affine(struct affine *b, size_t n, int who, unsigned salt) {
  size_t k;
  for (k = 0; k < n; k++) {
    uint64_t h = hv(who, k, salt);
    uint32_t a = (uint32_t)h | 1u, c = (uint32_t)(h >> 32);
    memcpy(&b[k].a, &a, sizeof a);
    memcpy(&b[k].b, &c, sizeof c);
  }
}

/* x0 op x1 op ... op x(n-1) in rank order, or in reverse order. */
static void ref_affine(struct affine *ref, struct affine *tmp, size_t n, unsigned salt,
                       int reverse) {
  int i;
  size_t k;
  fill_affine(ref, n, reverse ? size - 1 : 0, salt);
  for (i = 1; i < size; i++) {
    fill_affine(tmp, n, reverse ? size - 1 - i : i, salt);
    for (k = 0; k < n; k++) ref[k] = then(ref[k], tmp[k]);
  }
}

static void check_affine(const struct affine *got, const struct affine *exp, size_t n,
                         const char *what) {
  size_t k;
  for (k = 0; k < n; k++) {
    if (got[k].a != exp[k].a || got[k].b != exp[k].b)
      fail(
          "%s count %zu: element %zu: got {%d, %d}, expected {%d, %d} (the rank-order "
          "composition)",
          what, n, k, got[k].a, got[k].b, exp[k].a, exp[k].b);
  }
}

/* The reference must depend on the order, or the check proves nothing. */
static void check_order_matters(const struct affine *ref, struct affine *rev, struct affine *tmp,
                                size_t n, unsigned salt) {
  size_t k;
  if (size < 2) return;
  ref_affine(rev, tmp, n, salt, 1);
  for (k = 0; k < n; k++) {
    if (ref[k].a != rev[k].a || ref[k].b != rev[k].b) return;
  }
  fail(
      "compose count %zu: the rank-order and reverse-order results are the same, so the "
      "test cannot see the order",
      n);
}

static void test_compose(size_t n, MPI_Op op) {
  size_t bytes = n * sizeof(struct affine);
  struct affine *send = xmalloc(bytes), *orig = xmalloc(bytes), *recv = xmalloc(bytes);
  struct affine *ref = xmalloc(bytes), *tmp = xmalloc(bytes), *rev = xmalloc(bytes);
  int root, inplace;
  char what[200];

  for (inplace = 0; inplace <= 1; inplace++) {
    for (root = 0; root < size; root++) {
      unsigned salt = ++call_no;
      const void *sendbuf = inplace && rank == root ? MPI_IN_PLACE : send;
      fill_affine(send, n, rank, salt);
      prepare_buffers(send, orig, recv, bytes, inplace, rank == root);
      CHECK_MPI(MPI_Reduce(sendbuf, rank == root ? recv : NULL, (int)n, MPI_2INT, op, root,
                           MPI_COMM_WORLD));
      if (!inplace && memcmp(send, orig, bytes) != 0)
        fail("MPI_Reduce with compose count %zu changed the send buffer", n);
      if (rank == root) {
        ref_affine(ref, tmp, n, salt, 0);
        check_order_matters(ref, rev, tmp, n, salt);
        snprintf(what, sizeof what, "MPI_Reduce%s compose root %d",
                 inplace ? " (MPI_IN_PLACE at root)" : "", root);
        check_affine(recv, ref, n, what);
      }
    }

    {
      unsigned salt = ++call_no;
      fill_affine(send, n, rank, salt);
      prepare_buffers(send, orig, recv, bytes, inplace, 1);
      CHECK_MPI(
          MPI_Allreduce(inplace ? MPI_IN_PLACE : send, recv, (int)n, MPI_2INT, op, MPI_COMM_WORLD));
      if (memcmp(send, orig, bytes) != 0)
        fail("MPI_Allreduce with compose count %zu changed the send buffer", n);
      ref_affine(ref, tmp, n, salt, 0);
      check_order_matters(ref, rev, tmp, n, salt);
      snprintf(what, sizeof what, "MPI_Allreduce%s compose", inplace ? " (MPI_IN_PLACE)" : "");
      check_affine(recv, ref, n, what);
    }
  }
  free(send);
  free(orig);
  free(recv);
  free(ref);
  free(tmp);
  free(rev);
}

int main(int argc, char **argv) {
  static const size_t counts[] = {1, 5, 1000};
  struct sum_type sum_types[2];
  MPI_Op sum_op = MPI_OP_NULL, compose_op = MPI_OP_NULL, predefined = MPI_SUM;
  int commute = -1, rc, cls = -1;
  size_t c, t;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  sum_types[0].name = "MPI_INT";
  sum_types[0].dt = MPI_INT;
  sum_types[0].elem = sizeof(int);
  sum_types[1].name = "MPI_LONG_LONG";
  sum_types[1].dt = MPI_LONG_LONG;
  sum_types[1].elem = sizeof(long long);

  CHECK_MPI(MPI_Op_create(isum, 1, &sum_op));
  CHECK_MPI(MPI_Op_create(compose, 0, &compose_op));
  if (sum_op == MPI_OP_NULL || compose_op == MPI_OP_NULL || sum_op == compose_op)
    fail("MPI_Op_create did not return two distinct operations");

  CHECK_MPI(MPI_Op_commutative(sum_op, &commute));
  EXPECT_INT("MPI_Op_commutative(isum)", commute, 1);
  commute = -1;
  CHECK_MPI(MPI_Op_commutative(compose_op, &commute));
  EXPECT_INT("MPI_Op_commutative(compose)", commute, 0);
  commute = -1;
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  EXPECT_INT("MPI_Op_commutative(MPI_SUM)", commute, 1);

  for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    for (t = 0; t < 2; t++) test_isum(&sum_types[t], counts[c], sum_op);
    test_compose(counts[c], compose_op);
  }

  CHECK_MPI(MPI_Op_free(&sum_op));
  if (sum_op != MPI_OP_NULL) fail("MPI_Op_free(isum) did not set the handle to MPI_OP_NULL");
  CHECK_MPI(MPI_Op_free(&compose_op));
  if (compose_op != MPI_OP_NULL) fail("MPI_Op_free(compose) did not set the handle to MPI_OP_NULL");

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  rc = MPI_Op_free(&predefined);
  if (rc == MPI_SUCCESS) fail("MPI_Op_free of a predefined operation (MPI_SUM) succeeded");
  CHECK_MPI(MPI_Error_class(rc, &cls));
  EXPECT_INT("the error class of MPI_Op_free(MPI_SUM)", cls, MPI_ERR_OP);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  finalize_and_report(size);
  return 0;
}

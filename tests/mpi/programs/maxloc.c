/*
 * maxloc.c - MPI_MAXLOC / MPI_MINLOC on the predefined value-index pair types.
 *
 * Pair types and their C layouts (MPI defines them as these structs, padding
 * included):
 *   MPI_2INT        struct { int v; int i; }
 *   MPI_DOUBLE_INT  struct { double v; int i; }
 *   MPI_FLOAT_INT   struct { float v; int i; }
 *   MPI_LONG_INT    struct { long v; int i; }
 *   MPI_SHORT_INT   struct { short v; int i; }
 *
 * Checks:
 *   - MPI_Type_size of each pair type is the size of its two members without
 *     padding (e.g. sizeof(double) + sizeof(int) for MPI_DOUBLE_INT).
 *   - Each pair array moves intact through MPI_Bcast (from every root) and an
 *     MPI_Sendrecv ring shift, i.e. the struct stride is honoured.
 *   - MPI_MAXLOC and MPI_MINLOC with MPI_Reduce (every root, normal and
 *     MPI_IN_PLACE at the root) and MPI_Allreduce (normal and MPI_IN_PLACE),
 *     counts 1, 5, 1000 and 50000, against a serial reference. Values are
 *     drawn from three levels, so ties between ranks are frequent; indices
 *     decrease with the rank, so "lowest index wins" on a tie is told apart
 *     from "lowest rank wins". MPI_LONG_INT uses values beyond 32 bits and
 *     MPI_SHORT_INT values near the ends of short.
 *
 * Prints "maxloc: OK (N ranks)" from rank 0.
 */
#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "maxloc"
#include "check.h"

static int rank, size;
static unsigned call_no;

static uint64_t hv(int who, size_t k, unsigned salt) {
  return mix64(mix64(((uint64_t)salt << 32) ^ (uint64_t)(unsigned)who) + k);
}

/* Index of element k contributed by rank r: decreasing in r. */
static int index_of(int r, size_t k) { return (size - 1 - r) * 100 + (int)(k % 13) - 50; }

struct p_2int {
  int v;
  int i;
};
struct p_double_int {
  double v;
  int i;
};
struct p_float_int {
  float v;
  int i;
};
struct p_long_int {
  long v;
  int i;
};
struct p_short_int {
  short v;
  int i;
};

enum { LOC_MAX, LOC_MIN };

typedef void (*fill_fn)(void *buf, size_t n, int who, unsigned salt);
typedef void (*ref_fn)(void *acc, const void *in, size_t n, int op);
typedef long (*cmp_fn)(const void *a, const void *b, size_t n, char *msg, size_t len);

/* V0, V1, V2: the three value levels. */
#define DEF_PAIR(S, N, FMT, CAST, V0, V1, V2)                                            \
  static void fill_##N(void *b_, size_t n, int who, unsigned salt) {                     \
    struct S *b = b_;                                                                    \
    size_t k;                                                                            \
    for (k = 0; k < n; k++) {                                                            \
      uint64_t h = hv(who, k, salt) % 3;                                                 \
      b[k].v = h == 0 ? (V0) : h == 1 ? (V1) : (V2);                                     \
      b[k].i = index_of(who, k);                                                         \
    }                                                                                    \
  }                                                                                      \
  static void ref_##N(void *a_, const void *b_, size_t n, int op) {                      \
    struct S *a = a_;                                                                    \
    const struct S *b = b_;                                                              \
    size_t k;                                                                            \
    for (k = 0; k < n; k++) {                                                            \
      int better = op == LOC_MAX ? b[k].v > a[k].v : b[k].v < a[k].v;                    \
      if (better)                                                                        \
        a[k] = b[k];                                                                     \
      else if (b[k].v == a[k].v && b[k].i < a[k].i)                                      \
        a[k].i = b[k].i;                                                                 \
    }                                                                                    \
  }                                                                                      \
  static long cmp_##N(const void *g_, const void *e_, size_t n, char *msg, size_t len) { \
    const struct S *g = g_, *e = e_;                                                     \
    size_t k;                                                                            \
    for (k = 0; k < n; k++) {                                                            \
      if (g[k].v != e[k].v || g[k].i != e[k].i) {                                        \
        snprintf(msg, len, "element %zu: got {" FMT ", %d}, expected {" FMT ", %d}", k,  \
                 (CAST)g[k].v, g[k].i, (CAST)e[k].v, e[k].i);                            \
        return (long)k;                                                                  \
      }                                                                                  \
    }                                                                                    \
    return -1;                                                                           \
  }

DEF_PAIR(p_2int, 2int, "%d", int, -7, 0, 7)
DEF_PAIR(p_double_int, double_int, "%g", double, -1.5, 0.25, 2.5)
DEF_PAIR(p_float_int, float_int, "%g", double, -1.5f, 0.25f, 2.5f)
DEF_PAIR(p_long_int, long_int, "%ld", long, -(LONG_MAX / 2), 1L, LONG_MAX / 2 + 7)
DEF_PAIR(p_short_int, short_int, "%d", int, (short)(SHRT_MIN + 1), (short)3, (short)(SHRT_MAX - 1))

struct pdesc {
  const char *name;
  MPI_Datatype dt;
  size_t extent;    /* sizeof the struct */
  size_t type_size; /* sizes of the two members */
  fill_fn fill;
  ref_fn ref;
  cmp_fn cmp;
};

#define NPAIRS 5
static struct pdesc pairs[NPAIRS];

static void init_tables(void) {
  int n = 0;
#define P(NAME, DT, S, VT, N)                    \
  pairs[n].name = NAME;                          \
  pairs[n].dt = DT;                              \
  pairs[n].extent = sizeof(struct S);            \
  pairs[n].type_size = sizeof(VT) + sizeof(int); \
  pairs[n].fill = fill_##N;                      \
  pairs[n].ref = ref_##N;                        \
  pairs[n].cmp = cmp_##N;                        \
  n++;
  P("MPI_2INT", MPI_2INT, p_2int, int, 2int)
  P("MPI_DOUBLE_INT", MPI_DOUBLE_INT, p_double_int, double, double_int)
  P("MPI_FLOAT_INT", MPI_FLOAT_INT, p_float_int, float, float_int)
  P("MPI_LONG_INT", MPI_LONG_INT, p_long_int, long, long_int)
  P("MPI_SHORT_INT", MPI_SHORT_INT, p_short_int, short, short_int)
#undef P
}

static void check(const struct pdesc *p, const void *got, const void *exp, size_t n,
                  const char *what) {
  char msg[300];
  if (p->cmp(got, exp, n, msg, sizeof msg) >= 0) fail("%s %s count %zu: %s", what, p->name, n, msg);
}

static void junk(const struct pdesc *p, void *buf, size_t n) {
  /* Valid values (so comparing them is defined), but not the expected ones
   * in general: indices of a rank that does not exist. */
  p->fill(buf, n, size + 5, call_no * 7u + 1u);
}

static void reference(const struct pdesc *p, void *ref, void *tmp, size_t n, int op,
                      unsigned salt) {
  int r;
  p->fill(ref, n, 0, salt);
  for (r = 1; r < size; r++) {
    p->fill(tmp, n, r, salt);
    p->ref(ref, tmp, n, op);
  }
}

static void test_movement(const struct pdesc *p, size_t n, void *buf, void *ref) {
  int root;
  unsigned salt;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Status st;
  int count = -1;
  void *out = xmalloc(n * p->extent);

  for (root = 0; root < size; root++) {
    salt = ++call_no;
    if (rank == root)
      p->fill(buf, n, root, salt);
    else
      junk(p, buf, n);
    CHECK_MPI(MPI_Bcast(buf, (int)n, p->dt, root, MPI_COMM_WORLD));
    p->fill(ref, n, root, salt);
    check(p, buf, ref, n, "MPI_Bcast");
  }

  salt = ++call_no;
  p->fill(out, n, rank, salt);
  junk(p, buf, n);
  CHECK_MPI(
      MPI_Sendrecv(out, (int)n, p->dt, next, 9, buf, (int)n, p->dt, prev, 9, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, p->dt, &count));
  EXPECT_INT("MPI_Sendrecv of pairs: MPI_Get_count", count, (long long)n);
  p->fill(ref, n, prev, salt);
  check(p, buf, ref, n, "MPI_Sendrecv");
  free(out);
}

static void test_reductions(const struct pdesc *p, size_t n, void *send, void *recv, void *ref,
                            void *tmp) {
  static const char *const op_names[2] = {"MPI_MAXLOC", "MPI_MINLOC"};
  MPI_Op ops[2];
  int op, root, inplace;
  char what[200];
  ops[LOC_MAX] = MPI_MAXLOC;
  ops[LOC_MIN] = MPI_MINLOC;

  for (op = 0; op < 2; op++) {
    for (inplace = 0; inplace <= 1; inplace++) {
      for (root = 0; root < size; root++) {
        unsigned salt = ++call_no;
        const void *sendbuf = send;
        p->fill(send, n, rank, salt);
        if (rank == root) {
          if (inplace) {
            p->fill(recv, n, rank, salt);
            sendbuf = MPI_IN_PLACE;
          } else {
            junk(p, recv, n);
          }
        }
        CHECK_MPI(MPI_Reduce(sendbuf, rank == root ? recv : NULL, (int)n, p->dt, ops[op], root,
                             MPI_COMM_WORLD));
        if (rank == root) {
          reference(p, ref, tmp, n, op, salt);
          snprintf(what, sizeof what, "MPI_Reduce%s %s root %d",
                   inplace ? " (MPI_IN_PLACE at root)" : "", op_names[op], root);
          check(p, recv, ref, n, what);
        }
      }

      {
        unsigned salt = ++call_no;
        if (inplace) {
          p->fill(recv, n, rank, salt);
        } else {
          p->fill(send, n, rank, salt);
          junk(p, recv, n);
        }
        CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : send, recv, (int)n, p->dt, ops[op],
                                MPI_COMM_WORLD));
        reference(p, ref, tmp, n, op, salt);
        snprintf(what, sizeof what, "MPI_Allreduce%s %s", inplace ? " (MPI_IN_PLACE)" : "",
                 op_names[op]);
        check(p, recv, ref, n, what);
      }
    }
  }
}

int main(int argc, char **argv) {
  static const size_t counts[] = {1, 5, 1000, 50000};
  int t;
  size_t c;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  init_tables();

  for (t = 0; t < NPAIRS; t++) {
    int sz = -1;
    char what[100];
    CHECK_MPI(MPI_Type_size(pairs[t].dt, &sz));
    snprintf(what, sizeof what, "MPI_Type_size(%s)", pairs[t].name);
    EXPECT_INT(what, sz, (long long)pairs[t].type_size);
  }

  for (t = 0; t < NPAIRS; t++) {
    const struct pdesc *p = &pairs[t];
    for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
      size_t n = counts[c];
      void *send = xmalloc(n * p->extent), *recv = xmalloc(n * p->extent);
      void *ref = xmalloc(n * p->extent), *tmp = xmalloc(n * p->extent);
      /* Padding bytes are never compared, but keep them defined. */
      memset(send, 0, n * p->extent);
      memset(recv, 0, n * p->extent);
      memset(ref, 0, n * p->extent);
      memset(tmp, 0, n * p->extent);
      test_movement(p, n, recv, ref);
      test_reductions(p, n, send, recv, ref, tmp);
      free(send);
      free(recv);
      free(ref);
      free(tmp);
    }
  }

  finalize_and_report(size);
  return 0;
}

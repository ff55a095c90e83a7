/*
 * collectives.c - every collective against a serial reference.
 *
 * Each rank's contribution is a deterministic function of (rank, element
 * index, call number), so every rank can compute what every other rank sent
 * and hence the exact expected result locally. Values are chosen so that
 * results are exact whatever the reduction order: sums of small integers
 * (quarter-integers for float/double), products of {1, 2, 3, -1} (or
 * {1, 2, -1, 0.5}), full-range bit patterns for MIN/MAX/bitwise and data
 * movement, and a mix of zero and non-zero values for the logical ops.
 * Floating-point results are therefore compared with ==.
 *
 * Checks, for MPI_COMM_WORLD:
 *   - MPI_Type_size of every predefined datatype used equals sizeof the C type.
 *   - MPI_Barrier: for every rank L, L sleeps 50 ms and then checks with
 *     MPI_Iprobe that no rank has yet sent the message it only sends after
 *     leaving the barrier; then everybody passes the barrier and L receives
 *     those size-1 messages.
 *   - For the main types (int, double, long long, unsigned char, float) with
 *     counts 1, 7, 1000 and 100000, and for every other predefined integer
 *     type plus MPI_CHAR, MPI_C_BOOL and MPI_BYTE with counts 1, 7 and 1000:
 *       MPI_Bcast from every root;
 *       MPI_Reduce for every valid op, at every root, normal and with
 *         MPI_IN_PLACE at the root (recvbuf is NULL at non-roots);
 *       MPI_Allreduce for every valid op, normal and MPI_IN_PLACE;
 *       MPI_Gather at every root, normal and MPI_IN_PLACE at the root;
 *       MPI_Scatter from every root (sendbuf is NULL at non-roots);
 *       MPI_Allgather, normal and MPI_IN_PLACE;
 *       MPI_Alltoall.
 *     Valid ops: SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR on C
 *     integer types; SUM, PROD, MIN, MAX on float and double; LAND, LOR,
 *     LXOR on MPI_C_BOOL; BAND, BOR, BXOR on MPI_BYTE; none on MPI_CHAR.
 *   - Send buffers are unchanged after every (non-in-place) reduction.
 *   Under Open MPI 4.0.x/4.1.0-4.1.4 only, MPI_MIN/MPI_MAX on
 *   MPI_UNSIGNED_LONG are skipped: those versions compare it as signed
 *   (open-mpi/ompi#10525), which this program otherwise reports.
 *
 * Prints "collectives: OK (N ranks)" from rank 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "collectives"
#include "check.h"

static int rank, size;

/* ---- operations ------------------------------------------------------- */

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR, NOPS };
static const char *const op_names[NOPS] = {"MPI_SUM",  "MPI_PROD", "MPI_MIN",  "MPI_MAX",
                                           "MPI_LAND", "MPI_LOR",  "MPI_LXOR", "MPI_BAND",
                                           "MPI_BOR",  "MPI_BXOR"};
static MPI_Op mpi_ops[NOPS];

#define OPS_ARITH ((1u << OP_SUM) | (1u << OP_PROD) | (1u << OP_MIN) | (1u << OP_MAX))
#define OPS_LOGIC ((1u << OP_LAND) | (1u << OP_LOR) | (1u << OP_LXOR))
#define OPS_BIT ((1u << OP_BAND) | (1u << OP_BOR) | (1u << OP_BXOR))
#define OPS_INT (OPS_ARITH | OPS_LOGIC | OPS_BIT)

/* What kind of values an op gets as input. */
enum { CLS_SUM, CLS_PROD, CLS_LOGIC, CLS_FULL };
static int op_class(int op) {
  switch (op) {
    case OP_SUM:
      return CLS_SUM;
    case OP_PROD:
      return CLS_PROD;
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR:
      return CLS_LOGIC;
    default:
      return CLS_FULL;
  }
}

/* ---- value generation ------------------------------------------------- */

/* "who" is a rank (or a rank pair for Alltoall), "salt" the call number. */
static uint64_t hv(int who, size_t i, unsigned salt) {
  return mix64(mix64(((uint64_t)salt << 32) ^ (uint64_t)(unsigned)who) + i);
}

typedef void (*fill_fn)(void *buf, size_t n, int cls, int who, unsigned salt);
typedef void (*ref_fn)(void *acc, const void *in, size_t n, int op);
typedef int (*eq_fn)(const void *a, const void *b, size_t i);
typedef void (*fmt_fn)(const void *buf, size_t i, char *out, size_t len);

#define DEF_FILL_SIGNED(T, N)                                                 \
  static void fill_##N(void *b_, size_t n, int cls, int who, unsigned salt) { \
    static const int prod[6] = {1, 2, -1, 1, 3, 1};                           \
    static const int logic[5] = {0, 0, 1, 7, -3};                             \
    T *b = b_;                                                                \
    size_t i;                                                                 \
    for (i = 0; i < n; i++) {                                                 \
      uint64_t h = hv(who, i, salt);                                          \
      T v;                                                                    \
      switch (cls) {                                                          \
        case CLS_SUM:                                                         \
          v = (T)((int)(h % 41) - 20);                                        \
          break;                                                              \
        case CLS_PROD:                                                        \
          v = (T)prod[h % 6];                                                 \
          break;                                                              \
        case CLS_LOGIC:                                                       \
          v = (T)logic[h % 5];                                                \
          break;                                                              \
        default:                                                              \
          memcpy(&v, &h, sizeof v);                                           \
          break;                                                              \
      }                                                                       \
      b[i] = v;                                                               \
    }                                                                         \
  }

#define DEF_FILL_UNSIGNED(T, N)                                               \
  static void fill_##N(void *b_, size_t n, int cls, int who, unsigned salt) { \
    static const unsigned prod[4] = {1, 2, 1, 3};                             \
    static const unsigned logic[5] = {0, 0, 1, 7, 200};                       \
    T *b = b_;                                                                \
    size_t i;                                                                 \
    for (i = 0; i < n; i++) {                                                 \
      uint64_t h = hv(who, i, salt);                                          \
      T v;                                                                    \
      switch (cls) {                                                          \
        case CLS_SUM:                                                         \
          v = (T)(h % 41);                                                    \
          break;                                                              \
        case CLS_PROD:                                                        \
          v = (T)prod[h % 4];                                                 \
          break;                                                              \
        case CLS_LOGIC:                                                       \
          v = (T)logic[h % 5];                                                \
          break;                                                              \
        default:                                                              \
          v = (T)h;                                                           \
          break;                                                              \
      }                                                                       \
      b[i] = v;                                                               \
    }                                                                         \
  }

#define DEF_FILL_FLOAT(T, N)                                                  \
  static void fill_##N(void *b_, size_t n, int cls, int who, unsigned salt) { \
    static const double prod[4] = {1.0, 2.0, -1.0, 0.5};                      \
    T *b = b_;                                                                \
    size_t i;                                                                 \
    for (i = 0; i < n; i++) {                                                 \
      uint64_t h = hv(who, i, salt);                                          \
      double v;                                                               \
      switch (cls) {                                                          \
        case CLS_SUM:                                                         \
          v = ((int)(h % 41) - 20) * 0.25;                                    \
          break;                                                              \
        case CLS_PROD:                                                        \
          v = prod[h % 4];                                                    \
          break;                                                              \
        default:                                                              \
          v = ((int)(h % 200001) - 100000) * 0.125;                           \
          break;                                                              \
      }                                                                       \
      b[i] = (T)v;                                                            \
    }                                                                         \
  }

static void fill_bool(void *b_, size_t n, int cls, int who, unsigned salt) {
  bool *b = b_;
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t h = hv(who, i, salt);
    b[i] = cls == CLS_LOGIC ? (h % 4) != 0 : (h & 1) != 0;
  }
}

/* DEF_REF's cases for the logical and bitwise ops, which only the integer types have (and
 * NO_MORE_CASES for float and double). */
#define INT_ONLY_CASES(T) \
  case OP_LAND:           \
    z = (T)(x && y);      \
    break;                \
  case OP_LOR:            \
    z = (T)(x || y);      \
    break;                \
  case OP_LXOR:           \
    z = (T)(!x != !y);    \
    break;                \
  case OP_BAND:           \
    z = (T)(x & y);       \
    break;                \
  case OP_BOR:            \
    z = (T)(x | y);       \
    break;                \
  case OP_BXOR:           \
    z = (T)(x ^ y);       \
    break;
#define NO_MORE_CASES(T)

/* ref_N: the serial reduction a[i] = a[i] op b[i]; MORE_CASES(T) adds the ops beyond
 * SUM, PROD, MIN and MAX. */
#define DEF_REF(T, N, MORE_CASES)                                   \
  static void ref_##N(void *a_, const void *b_, size_t n, int op) { \
    T *a = a_;                                                      \
    const T *b = b_;                                                \
    size_t i;                                                       \
    for (i = 0; i < n; i++) {                                       \
      T x = a[i], y = b[i], z;                                      \
      switch (op) {                                                 \
        case OP_SUM:                                                \
          z = (T)(x + y);                                           \
          break;                                                    \
        case OP_PROD:                                               \
          z = (T)(x * y);                                           \
          break;                                                    \
        case OP_MIN:                                                \
          z = y < x ? y : x;                                        \
          break;                                                    \
        case OP_MAX:                                                \
          z = y > x ? y : x;                                        \
          break;                                                    \
          MORE_CASES(T)                                             \
        default:                                                    \
          z = x;                                                    \
          break;                                                    \
      }                                                             \
      a[i] = z;                                                     \
    }                                                               \
  }

#define DEF_EQ(T, N)                                          \
  static int eq_##N(const void *a, const void *b, size_t i) { \
    return ((const T *)a)[i] == ((const T *)b)[i];            \
  }

#define DEF_FMT(T, N, CAST, F)                                          \
  static void fmt_##N(const void *b, size_t i, char *out, size_t len) { \
    snprintf(out, len, F, (CAST)((const T *)b)[i]);                     \
  }

#define SIGNED_TYPE(T, N) \
  DEF_FILL_SIGNED(T, N) DEF_REF(T, N, INT_ONLY_CASES) DEF_EQ(T, N) DEF_FMT(T, N, long long, "%lld")
#define UNSIGNED_TYPE(T, N) \
  DEF_FILL_UNSIGNED(T, N)   \
  DEF_REF(T, N, INT_ONLY_CASES) DEF_EQ(T, N) DEF_FMT(T, N, unsigned long long, "%llu")
#define FLOAT_TYPE(T, N) \
  DEF_FILL_FLOAT(T, N) DEF_REF(T, N, NO_MORE_CASES) DEF_EQ(T, N) DEF_FMT(T, N, double, "%.9g")

SIGNED_TYPE(int, int)
FLOAT_TYPE(double, double)
SIGNED_TYPE(long long, llong)
UNSIGNED_TYPE(unsigned char, uchar)
FLOAT_TYPE(float, float)
SIGNED_TYPE(char, char)
SIGNED_TYPE(signed char, schar)
SIGNED_TYPE(short, short)
UNSIGNED_TYPE(unsigned short, ushort)
UNSIGNED_TYPE(unsigned, uint)
SIGNED_TYPE(long, long)
UNSIGNED_TYPE(unsigned long, ulong)
UNSIGNED_TYPE(unsigned long long, ullong)
SIGNED_TYPE(int8_t, i8)
UNSIGNED_TYPE(uint8_t, u8)
SIGNED_TYPE(int16_t, i16)
UNSIGNED_TYPE(uint16_t, u16)
SIGNED_TYPE(int32_t, i32)
UNSIGNED_TYPE(uint32_t, u32)
SIGNED_TYPE(int64_t, i64)
UNSIGNED_TYPE(uint64_t, u64)
static void ref_bool(void *a_, const void *b_, size_t n, int op) {
  bool *a = a_;
  const bool *b = b_;
  size_t i;
  for (i = 0; i < n; i++) {
    switch (op) {
      case OP_LAND:
        a[i] = a[i] && b[i];
        break;
      case OP_LOR:
        a[i] = a[i] || b[i];
        break;
      case OP_LXOR:
        a[i] = a[i] != b[i];
        break;
      default:
        break;
    }
  }
}
DEF_EQ(bool, bool)
DEF_FMT(bool, bool, int, "%d")

struct tdesc {
  const char *name;
  MPI_Datatype dt;
  size_t size;
  unsigned ops; /* bit set of valid OP_* */
  int big;      /* also run with 100000 elements */
  fill_fn fill;
  ref_fn ref;
  eq_fn eq;
  fmt_fn fmt;
};

#define NTYPES 23
static struct tdesc types[NTYPES];

/* Handles may not be compile-time constants, so the table is built here. */
static void init_tables(void) {
  int n = 0;
#define T(NAME, DT, CT, N, OPS, BIG) \
  types[n].name = NAME;              \
  types[n].dt = DT;                  \
  types[n].size = sizeof(CT);        \
  types[n].ops = OPS;                \
  types[n].big = BIG;                \
  types[n].ref = ref_##N;            \
  types[n].eq = eq_##N;              \
  types[n].fmt = fmt_##N;            \
  types[n].fill = fill_##N;          \
  n++;
  T("MPI_INT", MPI_INT, int, int, OPS_INT, 1)
  T("MPI_DOUBLE", MPI_DOUBLE, double, double, OPS_ARITH, 1)
  T("MPI_LONG_LONG", MPI_LONG_LONG, long long, llong, OPS_INT, 1)
  T("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, unsigned char, uchar, OPS_INT, 1)
  T("MPI_FLOAT", MPI_FLOAT, float, float, OPS_ARITH, 1)
  T("MPI_CHAR", MPI_CHAR, char, char, 0u, 0)
  T("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, signed char, schar, OPS_INT, 0)
  T("MPI_SHORT", MPI_SHORT, short, short, OPS_INT, 0)
  T("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, unsigned short, ushort, OPS_INT, 0)
  T("MPI_UNSIGNED", MPI_UNSIGNED, unsigned, uint, OPS_INT, 0)
  T("MPI_LONG", MPI_LONG, long, long, OPS_INT, 0)
  T("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, unsigned long, ulong, OPS_INT, 0)
  T("MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, unsigned long long, ullong, OPS_INT, 0)
  T("MPI_INT8_T", MPI_INT8_T, int8_t, i8, OPS_INT, 0)
  T("MPI_UINT8_T", MPI_UINT8_T, uint8_t, u8, OPS_INT, 0)
  T("MPI_INT16_T", MPI_INT16_T, int16_t, i16, OPS_INT, 0)
  T("MPI_UINT16_T", MPI_UINT16_T, uint16_t, u16, OPS_INT, 0)
  T("MPI_INT32_T", MPI_INT32_T, int32_t, i32, OPS_INT, 0)
  T("MPI_UINT32_T", MPI_UINT32_T, uint32_t, u32, OPS_INT, 0)
  T("MPI_INT64_T", MPI_INT64_T, int64_t, i64, OPS_INT, 0)
  T("MPI_UINT64_T", MPI_UINT64_T, uint64_t, u64, OPS_INT, 0)
  T("MPI_C_BOOL", MPI_C_BOOL, bool, bool, OPS_LOGIC, 0)
  T("MPI_BYTE", MPI_BYTE, unsigned char, uchar, OPS_BIT, 0)
#undef T
  if (n != NTYPES) fail("internal: type table has %d entries, expected %d", n, NTYPES);

  mpi_ops[OP_SUM] = MPI_SUM;
  mpi_ops[OP_PROD] = MPI_PROD;
  mpi_ops[OP_MIN] = MPI_MIN;
  mpi_ops[OP_MAX] = MPI_MAX;
  mpi_ops[OP_LAND] = MPI_LAND;
  mpi_ops[OP_LOR] = MPI_LOR;
  mpi_ops[OP_LXOR] = MPI_LXOR;
  mpi_ops[OP_BAND] = MPI_BAND;
  mpi_ops[OP_BOR] = MPI_BOR;
  mpi_ops[OP_BXOR] = MPI_BXOR;
}

/* ---- helpers ---------------------------------------------------------- */

static unsigned call_no; /* advanced identically on every rank */

static void *at(const struct tdesc *t, void *buf, size_t elems) {
  return (char *)buf + elems * t->size;
}

static void compare(const struct tdesc *t, const void *got, const void *exp, size_t n,
                    const char *what) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (!t->eq(got, exp, i)) {
      char g[64], e[64];
      t->fmt(got, i, g, sizeof g);
      t->fmt(exp, i, e, sizeof e);
      fail("%s: element %zu: got %s, expected %s", what, i, g, e);
    }
  }
}

/* Fills buf with a value different from the expected one (mostly) so that a
 * collective that leaves it alone is caught. */
static void fill_junk(const struct tdesc *t, void *buf, size_t n) {
  t->fill(buf, n, CLS_FULL, -12345, call_no * 7u + 3u);
}

/* Reference reduction of everybody's contribution. */
static void reference_reduce(const struct tdesc *t, void *ref, void *tmp, size_t n, int op,
                             unsigned salt) {
  int r;
  t->fill(ref, n, op_class(op), 0, salt);
  for (r = 1; r < size; r++) {
    t->fill(tmp, n, op_class(op), r, salt);
    t->ref(ref, tmp, n, op);
  }
}

/* ---- the collectives -------------------------------------------------- */

struct bufs {
  void *send, *recv, *ref, *tmp; /* each size*count elements */
};

static void test_bcast(const struct tdesc *t, size_t n, struct bufs *b) {
  int root;
  char what[160];
  for (root = 0; root < size; root++) {
    unsigned salt = ++call_no;
    if (rank == root)
      t->fill(b->recv, n, CLS_FULL, root, salt);
    else
      fill_junk(t, b->recv, n);
    CHECK_MPI(MPI_Bcast(b->recv, (int)n, t->dt, root, MPI_COMM_WORLD));
    t->fill(b->ref, n, CLS_FULL, root, salt);
    snprintf(what, sizeof what, "MPI_Bcast %s count %zu root %d", t->name, n, root);
    compare(t, b->recv, b->ref, n, what);
  }
}

static void test_reduce(const struct tdesc *t, size_t n, struct bufs *b) {
  int op, root, inplace;
  char what[200];
  for (op = 0; op < NOPS; op++) {
    if (!(t->ops & (1u << op))) continue;
    for (inplace = 0; inplace <= 1; inplace++) {
      for (root = 0; root < size; root++) {
        unsigned salt = ++call_no;
        const void *sendbuf = b->send;
        int cls = op_class(op);
        t->fill(b->send, n, cls, rank, salt);
        if (rank == root) {
          if (inplace) {
            t->fill(b->recv, n, cls, rank, salt);
            sendbuf = MPI_IN_PLACE;
          } else {
            fill_junk(t, b->recv, n);
          }
        }
        CHECK_MPI(MPI_Reduce(sendbuf, rank == root ? b->recv : NULL, (int)n, t->dt, mpi_ops[op],
                             root, MPI_COMM_WORLD));
        snprintf(what, sizeof what, "MPI_Reduce%s %s %s count %zu root %d",
                 inplace ? " (MPI_IN_PLACE at root)" : "", op_names[op], t->name, n, root);
        if (rank == root) {
          reference_reduce(t, b->ref, b->tmp, n, op, salt);
          compare(t, b->recv, b->ref, n, what);
        }
        if (sendbuf != MPI_IN_PLACE) {
          t->fill(b->tmp, n, cls, rank, salt);
          strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
          compare(t, b->send, b->tmp, n, what);
        }
      }
    }
  }
}

static void test_allreduce(const struct tdesc *t, size_t n, struct bufs *b) {
  int op, inplace;
  char what[200];
  for (op = 0; op < NOPS; op++) {
    if (!(t->ops & (1u << op))) continue;
    for (inplace = 0; inplace <= 1; inplace++) {
      unsigned salt = ++call_no;
      int cls = op_class(op);
      if (inplace) {
        t->fill(b->recv, n, cls, rank, salt);
      } else {
        t->fill(b->send, n, cls, rank, salt);
        fill_junk(t, b->recv, n);
      }
      CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : b->send, b->recv, (int)n, t->dt, mpi_ops[op],
                              MPI_COMM_WORLD));
      snprintf(what, sizeof what, "MPI_Allreduce%s %s %s count %zu",
               inplace ? " (MPI_IN_PLACE)" : "", op_names[op], t->name, n);
      reference_reduce(t, b->ref, b->tmp, n, op, salt);
      compare(t, b->recv, b->ref, n, what);
      if (!inplace) {
        t->fill(b->tmp, n, cls, rank, salt);
        strncat(what, ": send buffer", sizeof what - strlen(what) - 1);
        compare(t, b->send, b->tmp, n, what);
      }
    }
  }
}

static void test_gather(const struct tdesc *t, size_t n, struct bufs *b) {
  int root, inplace, r;
  char what[200];
  for (inplace = 0; inplace <= 1; inplace++) {
    for (root = 0; root < size; root++) {
      unsigned salt = ++call_no;
      const void *sendbuf = b->send;
      t->fill(b->send, n, CLS_FULL, rank, salt);
      if (rank == root) {
        fill_junk(t, b->recv, n * (size_t)size);
        if (inplace) {
          t->fill(at(t, b->recv, n * (size_t)root), n, CLS_FULL, root, salt);
          sendbuf = MPI_IN_PLACE;
        }
      }
      CHECK_MPI(MPI_Gather(sendbuf, (int)n, t->dt, rank == root ? b->recv : NULL, (int)n, t->dt,
                           root, MPI_COMM_WORLD));
      if (rank == root) {
        for (r = 0; r < size; r++) {
          t->fill(b->ref, n, CLS_FULL, r, salt);
          snprintf(what, sizeof what, "MPI_Gather%s %s count %zu root %d: block from rank %d",
                   inplace ? " (MPI_IN_PLACE at root)" : "", t->name, n, root, r);
          compare(t, at(t, b->recv, n * (size_t)r), b->ref, n, what);
        }
      }
    }
  }
}

static void test_scatter(const struct tdesc *t, size_t n, struct bufs *b) {
  int root, r;
  char what[200];
  for (root = 0; root < size; root++) {
    unsigned salt = ++call_no;
    if (rank == root)
      for (r = 0; r < size; r++) t->fill(at(t, b->send, n * (size_t)r), n, CLS_FULL, r, salt);
    fill_junk(t, b->recv, n);
    CHECK_MPI(MPI_Scatter(rank == root ? b->send : NULL, (int)n, t->dt, b->recv, (int)n, t->dt,
                          root, MPI_COMM_WORLD));
    t->fill(b->ref, n, CLS_FULL, rank, salt);
    snprintf(what, sizeof what, "MPI_Scatter %s count %zu root %d", t->name, n, root);
    compare(t, b->recv, b->ref, n, what);
  }
}

static void test_allgather(const struct tdesc *t, size_t n, struct bufs *b) {
  int inplace, r;
  char what[200];
  for (inplace = 0; inplace <= 1; inplace++) {
    unsigned salt = ++call_no;
    fill_junk(t, b->recv, n * (size_t)size);
    if (inplace)
      t->fill(at(t, b->recv, n * (size_t)rank), n, CLS_FULL, rank, salt);
    else
      t->fill(b->send, n, CLS_FULL, rank, salt);
    CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : b->send, (int)n, t->dt, b->recv, (int)n, t->dt,
                            MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
      t->fill(b->ref, n, CLS_FULL, r, salt);
      snprintf(what, sizeof what,
               "MPI_Allgather%s %s count %zu: block from "
               "rank %d",
               inplace ? " (MPI_IN_PLACE)" : "", t->name, n, r);
      compare(t, at(t, b->recv, n * (size_t)r), b->ref, n, what);
    }
  }
}

static void test_alltoall(const struct tdesc *t, size_t n, struct bufs *b) {
  unsigned salt = ++call_no;
  int r;
  char what[200];
  for (r = 0; r < size; r++)
    t->fill(at(t, b->send, n * (size_t)r), n, CLS_FULL, rank * size + r, salt);
  fill_junk(t, b->recv, n * (size_t)size);
  CHECK_MPI(MPI_Alltoall(b->send, (int)n, t->dt, b->recv, (int)n, t->dt, MPI_COMM_WORLD));
  for (r = 0; r < size; r++) {
    t->fill(b->ref, n, CLS_FULL, r * size + rank, salt);
    snprintf(what, sizeof what, "MPI_Alltoall %s count %zu: block from rank %d", t->name, n, r);
    compare(t, at(t, b->recv, n * (size_t)r), b->ref, n, what);
  }
}

/* Open MPI 4.0.x and 4.1.0-4.1.4 compare MPI_UNSIGNED_LONG as signed long in
 * MPI_MIN/MPI_MAX (open-mpi/ompi issues 10525 and 10648, fixed in 4.1.5).
 * Under those versions only, those two ops are skipped for that type. */
static int ulong_minmax_broken(void) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0, major = 0, minor = 0, patch = 0;
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  if (sscanf(lib, "Open MPI v%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major == 4 && (minor == 0 || (minor == 1 && patch < 5));
}

static void run_type(const struct tdesc *t) {
  static const size_t counts[] = {1, 7, 1000, 100000};
  size_t ncounts = t->big ? 4 : 3, c;
  for (c = 0; c < ncounts; c++) {
    size_t n = counts[c];
    struct bufs b;
    size_t bytes = n * (size_t)size * t->size;
    b.send = xmalloc(bytes);
    b.recv = xmalloc(bytes);
    b.ref = xmalloc(bytes);
    b.tmp = xmalloc(bytes);
    test_bcast(t, n, &b);
    test_reduce(t, n, &b);
    test_allreduce(t, n, &b);
    test_gather(t, n, &b);
    test_scatter(t, n, &b);
    test_allgather(t, n, &b);
    test_alltoall(t, n, &b);
    free(b.send);
    free(b.recv);
    free(b.ref);
    free(b.tmp);
  }
}

/* ---- barrier ---------------------------------------------------------- */

#define TAG_BARRIER 77

static void test_barrier(void) {
  int late;
  for (late = 0; late < size; late++) {
    if (rank == late) {
      struct timespec ts = {0, 50 * 1000000L};
      int flag = -1, i;
      MPI_Status st;
      while (nanosleep(&ts, &ts) != 0) {
      }
      CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, TAG_BARRIER, MPI_COMM_WORLD, &flag, &st));
      if (flag)
        fail(
            "MPI_Barrier: rank %d left the barrier before rank %d (late) "
            "entered it: MPI_Iprobe flag got %d, expected 0",
            st.MPI_SOURCE, late, flag);
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      for (i = 0; i < size - 1; i++) {
        int v = -1;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_BARRIER, MPI_COMM_WORLD, &st));
        EXPECT_INT("MPI_Barrier check message: value vs source", v, st.MPI_SOURCE);
      }
    } else {
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, late, TAG_BARRIER, MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  int i;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  init_tables();

  for (i = 0; i < NTYPES; i++) {
    int sz = -1;
    char what[100];
    CHECK_MPI(MPI_Type_size(types[i].dt, &sz));
    snprintf(what, sizeof what, "MPI_Type_size(%s)", types[i].name);
    EXPECT_INT(what, sz, (long long)types[i].size);
  }

  if (ulong_minmax_broken()) {
    for (i = 0; i < NTYPES; i++)
      if (types[i].dt == MPI_UNSIGNED_LONG) types[i].ops &= ~((1u << OP_MIN) | (1u << OP_MAX));
    if (rank == 0)
      fprintf(stderr,
              "%s: note: skipping MPI_MIN/MPI_MAX on "
              "MPI_UNSIGNED_LONG (known bug of this Open MPI version)\n",
              PROGRAM);
  }

  test_barrier();
  for (i = 0; i < NTYPES; i++) run_type(&types[i]);

  finalize_and_report(size);
  return 0;
}

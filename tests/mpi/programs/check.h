/*
 * check.h - the helpers every test program in this directory shares.
 *
 * Each program defines PROGRAM, its name, before including this header:
 *
 *   #define PROGRAM "ring"
 *   #include "check.h"
 *
 * and sets g_rank to its rank in MPI_COMM_WORLD once it knows it. Every
 * message then starts with "<PROGRAM>: rank <g_rank>: ". The header uses
 * nothing but standard C and MPI, so a program builds with any MPI's mpicc
 * and no extra flags.
 */
#ifndef MPI_TESTS_PROGRAMS_CHECK_H
#define MPI_TESTS_PROGRAMS_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PROGRAM
#error "define PROGRAM (the program's name) before including check.h"
#endif

/* This process's rank in MPI_COMM_WORLD, for messages; -1 until the program sets it. */
static int g_rank = -1;
/* Set once MPI_Finalize has returned: fail() must then no longer call MPI_Abort. */
static int g_finalized = 0;

/* Reports a failed check as "<program>: rank R: <printf-style message>" on stderr and
 * stops every rank (MPI_Abort, then exit if that returns). */
static inline void fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: rank %d: ", PROGRAM, g_rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  if (!g_finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* Fails with "<what>: got G, expected E" unless two integer values are equal. */
#define EXPECT_INT(what, got, exp)                                             \
  do {                                                                         \
    long long got_ = (long long)(got), exp_ = (long long)(exp);                \
    if (got_ != exp_) fail("%s: got %lld, expected %lld", (what), got_, exp_); \
  } while (0)

/* Fails, naming the call as written, unless an MPI call returns MPI_SUCCESS. */
#define CHECK_MPI(call)                                                                   \
  do {                                                                                    \
    int rc_ = (call);                                                                     \
    if (rc_ != MPI_SUCCESS)                                                               \
      fail("%s: got return code %d, expected MPI_SUCCESS (%d)", #call, rc_, MPI_SUCCESS); \
  } while (0)

/* Fails unless `rc`, what a call returned under MPI_ERRORS_RETURN, is an error of class
 * `expected`; `what` names the call. */
static inline void expect_class(const char *what, int rc, int expected) {
  int cls = -1;
  if (rc == MPI_SUCCESS) fail("%s succeeded, expected an error of class %d", what, expected);
  CHECK_MPI(MPI_Error_class(rc, &cls));
  EXPECT_INT(what, cls, expected);
}

/* malloc that fails the test when out of memory (and never returns NULL for 0 bytes). */
static inline void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) fail("out of memory (%zu bytes)", n);
  return p;
}

/* A 64-bit mixing function (splitmix64's finaliser): test data that every rank can
 * compute for every other rank. */
static inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Checks a receive status: status.MPI_SOURCE, status.MPI_TAG and MPI_Get_count in `type`,
 * each failure named "<what>: status.MPI_SOURCE" and so on. */
static inline void expect_status(const char *what, const MPI_Status *st, int source, int tag,
                                 MPI_Datatype type, int count) {
  int got = -1;
  char buf[240];
  snprintf(buf, sizeof buf, "%s: status.MPI_SOURCE", what);
  EXPECT_INT(buf, st->MPI_SOURCE, source);
  snprintf(buf, sizeof buf, "%s: status.MPI_TAG", what);
  EXPECT_INT(buf, st->MPI_TAG, tag);
  CHECK_MPI(MPI_Get_count(st, type, &got));
  snprintf(buf, sizeof buf, "%s: MPI_Get_count", what);
  EXPECT_INT(buf, got, count);
}

/* The end of a passing run: MPI_Barrier, MPI_Finalize, and "<program>: OK (N ranks)" on
 * stdout from rank 0. */
static inline void finalize_and_report(int size) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  g_finalized = 1;
  if (g_rank == 0) {
    printf("%s: OK (%d ranks)\n", PROGRAM, size);
    fflush(stdout);
  }
}

#endif /* MPI_TESTS_PROGRAMS_CHECK_H */

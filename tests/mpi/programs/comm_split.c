/*
 * comm_split.c - MPI_Comm_split, MPI_Comm_dup, MPI_Comm_compare, MPI_Comm_free
 * and the separation of traffic between communicators.
 *
 * Checks:
 *   1. Split by rank parity (color = rank % 2, key = rank): new rank is
 *      rank / 2, new size is ceil(size/2) for the evens and floor(size/2) for
 *      the odds. Inside each half, at the same time: MPI_Allreduce(SUM) of the
 *      world ranks gives that half's sum; MPI_Bcast from the half's rank 0
 *      gives that root's value; every member MPI_Sends its world rank to the
 *      half's rank 0, which receives them with MPI_ANY_SOURCE and checks that
 *      status.MPI_SOURCE (a rank in the half) and the value agree, then
 *      answers each member with MPI_Send. MPI_Comm_compare(half, world) is
 *      MPI_UNEQUAL (MPI_CONGRUENT with one rank).
 *   2. Split with key = size - rank (one color): ranks come out reversed
 *      (new rank = size-1-rank); same Allreduce / Bcast / Send-Recv checks.
 *   3. Equal keys (color = rank % 2, key = 0): ties are broken by the rank in
 *      the old communicator, so new rank = rank / 2.
 *   4. color = MPI_UNDEFINED on rank 0 (and then on every rank) gives
 *      MPI_COMM_NULL there; the others get a communicator of size-1 ranks
 *      with new rank = rank - 1 that works (Allreduce).
 *   5. MPI_Comm_dup: same rank and size; MPI_Comm_compare(dup, world) is
 *      MPI_CONGRUENT, (world, world) and (dup, dup) are MPI_IDENT, and a dup
 *      of a split communicator is MPI_CONGRUENT to it. Messages on the dup do
 *      not match receives on the world: every rank sends to rank+1 on world
 *      and then on dup with the same tag, and the receiver receives on dup
 *      first (MPI_ANY_SOURCE, MPI_ANY_TAG), then on world - and the other way
 *      round; the same between a parity half and its dup.
 *   6. MPI_Comm_free sets each freed handle to MPI_COMM_NULL.
 *
 * Prints "comm_split: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "comm_split"
#include "check.h"

#define TAG_STAR 5
#define TAG_REPLY 6
#define TAG_ISOLATION 42

static int rank, size;

static const char *cmp_name(int r) {
  if (r == MPI_IDENT) return "MPI_IDENT";
  if (r == MPI_CONGRUENT) return "MPI_CONGRUENT";
  if (r == MPI_UNEQUAL) return "MPI_UNEQUAL";
  return "something else";
}

static void expect_compare(const char *what, MPI_Comm a, MPI_Comm b, int exp) {
  int r = -12345;
  CHECK_MPI(MPI_Comm_compare(a, b, &r));
  if (r != exp)
    fail("MPI_Comm_compare(%s): got %d (%s), expected %d (%s)", what, r, cmp_name(r), exp,
         cmp_name(exp));
}

/*
 * Exercises a communicator `comm` in which new rank k is world rank
 * world_of(k) = a*k + b (a = 2 or -1 in the uses below), with n members.
 */
struct layout {
  const char *name;
  int a, b, n;
};

static int world_of(const struct layout *l, int k) { return l->a * k + l->b; }

static void exercise(MPI_Comm comm, const struct layout *l) {
  int nrank = -1, nsize = -1, k, sum = 0, got, v;
  char what[200];

  CHECK_MPI(MPI_Comm_rank(comm, &nrank));
  CHECK_MPI(MPI_Comm_size(comm, &nsize));
  snprintf(what, sizeof what, "%s: MPI_Comm_size", l->name);
  EXPECT_INT(what, nsize, l->n);
  if (nrank < 0 || nrank >= nsize)
    fail("%s: MPI_Comm_rank: got %d, expected 0..%d", l->name, nrank, nsize - 1);
  snprintf(what, sizeof what, "%s: world rank of new rank %d", l->name, nrank);
  EXPECT_INT(what, world_of(l, nrank), rank);

  /* Allreduce of the world ranks. */
  for (k = 0; k < l->n; k++) sum += world_of(l, k);
  got = -1;
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, comm));
  snprintf(what, sizeof what, "%s: MPI_Allreduce(SUM) of world ranks", l->name);
  EXPECT_INT(what, got, sum);

  /* Bcast from new rank 0. */
  v = nrank == 0 ? rank * 10 + 1 : -1;
  CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
  snprintf(what, sizeof what, "%s: MPI_Bcast from new rank 0", l->name);
  EXPECT_INT(what, v, world_of(l, 0) * 10 + 1);

  /* Star: everybody reports to new rank 0, which answers. */
  if (nrank == 0) {
    int *seen = calloc((size_t)nsize, sizeof *seen);
    if (seen == NULL) fail("out of memory");
    for (k = 1; k < nsize; k++) {
      MPI_Status st;
      int in = -1, src;
      CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, TAG_STAR, comm, &st));
      src = st.MPI_SOURCE;
      if (src <= 0 || src >= nsize || seen[src])
        fail(
            "%s: MPI_Recv(MPI_ANY_SOURCE) status.MPI_SOURCE: got %d, "
            "expected a new rank in 1..%d not seen yet",
            l->name, src, nsize - 1);
      seen[src] = 1;
      snprintf(what, sizeof what, "%s: world rank sent by new rank %d", l->name, src);
      EXPECT_INT(what, in, world_of(l, src));
      in = world_of(l, src) * 3;
      CHECK_MPI(MPI_Send(&in, 1, MPI_INT, src, TAG_REPLY, comm));
    }
    free(seen);
  } else {
    int in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, TAG_STAR, comm));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, 0, TAG_REPLY, comm, &st));
    snprintf(what, sizeof what, "%s: reply from new rank 0", l->name);
    EXPECT_INT(what, in, rank * 3);
    snprintf(what, sizeof what, "%s: reply status.MPI_SOURCE", l->name);
    EXPECT_INT(what, st.MPI_SOURCE, 0);
  }
}

static void free_and_check(MPI_Comm *comm, const char *name) {
  CHECK_MPI(MPI_Comm_free(comm));
  if (*comm != MPI_COMM_NULL)
    fail("MPI_Comm_free(%s) did not set the handle to MPI_COMM_NULL", name);
}

/* `second` is a dup of `first` (or the other way round), so ranks agree.
 * Sends on `first` then `second` to rank+1, receives on `second` first. */
static void isolation(MPI_Comm first, MPI_Comm second, const char *fname, const char *sname) {
  int me = -1, n = -1, next, prev, out1, out2, in1 = -1, in2 = -1;
  MPI_Request reqs[2];
  MPI_Status st;
  char what[200];

  CHECK_MPI(MPI_Comm_rank(first, &me));
  CHECK_MPI(MPI_Comm_size(first, &n));
  next = (me + 1) % n;
  prev = (me + n - 1) % n;
  out1 = me * 10 + 1;
  out2 = me * 10 + 2;

  CHECK_MPI(MPI_Isend(&out1, 1, MPI_INT, next, TAG_ISOLATION, first, &reqs[0]));
  CHECK_MPI(MPI_Isend(&out2, 1, MPI_INT, next, TAG_ISOLATION, second, &reqs[1]));
  CHECK_MPI(MPI_Recv(&in2, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, second, &st));
  snprintf(what, sizeof what, "receive on %s (sent on %s after a send on %s)", sname, sname, fname);
  EXPECT_INT(what, in2, prev * 10 + 2);
  EXPECT_INT("status.MPI_SOURCE", st.MPI_SOURCE, prev);
  EXPECT_INT("status.MPI_TAG", st.MPI_TAG, TAG_ISOLATION);
  CHECK_MPI(MPI_Recv(&in1, 1, MPI_INT, prev, TAG_ISOLATION, first, &st));
  snprintf(what, sizeof what, "receive on %s (sent first)", fname);
  EXPECT_INT(what, in1, prev * 10 + 1);
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv) {
  MPI_Comm parity, reversed, ties, undef, dup, dup_parity;
  int color, nrank, nsize;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* 1. Parity. */
  color = rank % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &parity));
  if (parity == MPI_COMM_NULL) fail("MPI_Comm_split by parity gave MPI_COMM_NULL");
  {
    struct layout l;
    l.name = color == 0 ? "even half" : "odd half";
    l.a = 2;
    l.b = color;
    l.n = color == 0 ? (size + 1) / 2 : size / 2;
    nrank = -1;
    CHECK_MPI(MPI_Comm_rank(parity, &nrank));
    EXPECT_INT("parity split: new rank", nrank, rank / 2);
    exercise(parity, &l);
  }
  expect_compare("parity half, MPI_COMM_WORLD", parity, MPI_COMM_WORLD,
                 size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

  /* 2. Reversed. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed));
  {
    struct layout l = {"reversed", -1, 0, 0};
    l.b = size - 1;
    l.n = size;
    nrank = -1;
    CHECK_MPI(MPI_Comm_rank(reversed, &nrank));
    EXPECT_INT("reversed split: new rank", nrank, size - 1 - rank);
    exercise(reversed, &l);
  }

  /* 3. Equal keys. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &ties));
  nrank = -1;
  nsize = -1;
  CHECK_MPI(MPI_Comm_rank(ties, &nrank));
  CHECK_MPI(MPI_Comm_size(ties, &nsize));
  EXPECT_INT("split with equal keys: new rank", nrank, rank / 2);
  EXPECT_INT("split with equal keys: new size", nsize, rank % 2 == 0 ? (size + 1) / 2 : size / 2);

  /* 4. MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &undef));
  if (rank == 0) {
    if (undef != MPI_COMM_NULL)
      fail(
          "MPI_Comm_split with MPI_UNDEFINED color did not give "
          "MPI_COMM_NULL");
  } else {
    int got = -1;
    if (undef == MPI_COMM_NULL) fail("MPI_Comm_split with color 1 gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_rank(undef, &nrank));
    CHECK_MPI(MPI_Comm_size(undef, &nsize));
    EXPECT_INT("split without rank 0: new rank", nrank, rank - 1);
    EXPECT_INT("split without rank 0: new size", nsize, size - 1);
    CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, undef));
    EXPECT_INT("split without rank 0: MPI_Allreduce of world ranks", got, size * (size - 1) / 2);
    free_and_check(&undef, "split without rank 0");
  }
  {
    MPI_Comm none = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &none));
    if (none != MPI_COMM_NULL)
      fail(
          "MPI_Comm_split with MPI_UNDEFINED on every rank did not give "
          "MPI_COMM_NULL");
  }

  /* 5. Dup. */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  nrank = -1;
  nsize = -1;
  CHECK_MPI(MPI_Comm_rank(dup, &nrank));
  CHECK_MPI(MPI_Comm_size(dup, &nsize));
  EXPECT_INT("dup: rank", nrank, rank);
  EXPECT_INT("dup: size", nsize, size);
  expect_compare("dup, MPI_COMM_WORLD", dup, MPI_COMM_WORLD, MPI_CONGRUENT);
  expect_compare("MPI_COMM_WORLD, MPI_COMM_WORLD", MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT);
  expect_compare("dup, dup", dup, dup, MPI_IDENT);
  CHECK_MPI(MPI_Comm_dup(parity, &dup_parity));
  expect_compare("dup of parity half, parity half", dup_parity, parity, MPI_CONGRUENT);
  isolation(MPI_COMM_WORLD, dup, "MPI_COMM_WORLD", "dup");
  isolation(dup, MPI_COMM_WORLD, "dup", "MPI_COMM_WORLD");
  isolation(parity, dup_parity, "parity half", "dup of parity half");

  /* 6. Free. */
  free_and_check(&dup_parity, "dup of parity half");
  free_and_check(&dup, "dup");
  free_and_check(&ties, "equal-keys split");
  free_and_check(&reversed, "reversed split");
  free_and_check(&parity, "parity half");

  finalize_and_report(size);
  return 0;
}

/*
 * groups.c - MPI_Comm_group, the MPI_Group_* functions, MPI_Comm_create and
 * MPI_Comm_create_group.
 *
 * Checks (N ranks; "evens" are the world ranks 0, 2, 4, ..., "odds" 1, 3, ...):
 *   1. MPI_Comm_group(MPI_COMM_WORLD): size N, rank = world rank, MPI_IDENT
 *      to itself.
 *   2. MPI_Group_incl of the even ranks: size ceil(N/2), MPI_Group_rank is
 *      rank/2 on the evens and MPI_UNDEFINED on the odds. MPI_Group_excl of
 *      the even ranks gives the odds (size floor(N/2); MPI_GROUP_EMPTY's
 *      size 0 with one rank). The world in reverse order (MPI_Group_incl
 *      with N-1, ..., 0) is MPI_SIMILAR to the world (MPI_IDENT with one
 *      rank). MPI_Group_range_incl and _range_excl with the triplets
 *      (0, last even, 2) and (N-1, 0, -1) give the same groups.
 *   3. MPI_Group_translate_ranks from the world to the evens: 2k -> k, odd
 *      ranks -> MPI_UNDEFINED, MPI_PROC_NULL -> MPI_PROC_NULL; from the
 *      world to the reversed world: r -> N-1-r.
 *   4. Set operations, order included: union(evens, odds) is the evens then
 *      the odds (MPI_IDENT to the world for N <= 2, else MPI_SIMILAR);
 *      union(odds, evens) starts with the odds; intersection(evens,
 *      reversed) is MPI_IDENT to the evens (group1's order);
 *      intersection(evens, odds) is empty (MPI_IDENT to MPI_GROUP_EMPTY);
 *      difference(world, evens) is MPI_IDENT to the odds; difference(world,
 *      world) is empty.
 *   5. With MPI_ERRORS_RETURN: MPI_Group_incl of rank N -> MPI_ERR_RANK,
 *      MPI_Group_size(MPI_GROUP_NULL) -> MPI_ERR_GROUP.
 *   6. MPI_Comm_create(MPI_COMM_WORLD, evens): the evens get a communicator
 *      of ceil(N/2) ranks with rank rank/2 whose group is MPI_IDENT to the
 *      evens; the odds get MPI_COMM_NULL. Inside: MPI_Allreduce(SUM) of the
 *      world ranks and a MPI_Sendrecv ring. MPI_Comm_create with the
 *      reversed world gives new rank N-1-rank (Allreduce again), and with
 *      MPI_GROUP_EMPTY gives MPI_COMM_NULL everywhere.
 *   7. MPI_Comm_create_group of the first half (ranks 0 .. ceil(N/2)-1),
 *      called by the first half only, while the second half makes its own
 *      with the same tag: each half gets a communicator of its members in
 *      order, with Allreduce and Bcast inside. A rank that calls it with
 *      MPI_GROUP_EMPTY alone gets MPI_COMM_NULL.
 *   8. MPI_Group_free and MPI_Comm_free set every handle to the null handle.
 *
 * Prints "groups: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "groups"
#include "check.h"

#define TAG_RING 3
#define TAG_CREATE 17

static int rank, size;

static void expect_group_compare(const char *what, MPI_Group a, MPI_Group b, int exp) {
  int r = -12345;
  CHECK_MPI(MPI_Group_compare(a, b, &r));
  if (r != exp) fail("MPI_Group_compare(%s): got %d, expected %d", what, r, exp);
}

/* The world ranks of `group`'s members, in order, through MPI_Group_translate_ranks. */
static void expect_members(const char *what, MPI_Group group, MPI_Group world, int n,
                           const int *expected) {
  int gsize = -1, k;
  int *in = malloc(sizeof(int) * (size_t)(n + 1)), *out = malloc(sizeof(int) * (size_t)(n + 1));
  char msg[200];
  if (in == NULL || out == NULL) fail("out of memory");
  CHECK_MPI(MPI_Group_size(group, &gsize));
  snprintf(msg, sizeof msg, "%s: MPI_Group_size", what);
  EXPECT_INT(msg, gsize, n);
  for (k = 0; k < n; k++) in[k] = k;
  if (n > 0) CHECK_MPI(MPI_Group_translate_ranks(group, n, in, world, out));
  for (k = 0; k < n; k++) {
    snprintf(msg, sizeof msg, "%s: world rank of member %d", what, k);
    EXPECT_INT(msg, out[k], expected[k]);
  }
  free(in);
  free(out);
}

/* Allreduce of the world ranks, and a Sendrecv ring, in `comm`, whose rank k is world
 * rank members[k]. */
static void exercise(const char *what, MPI_Comm comm, int n, const int *members) {
  int nrank = -1, nsize = -1, sum = 0, got = -1, k, next, prev, in = -1;
  char msg[200];
  CHECK_MPI(MPI_Comm_rank(comm, &nrank));
  CHECK_MPI(MPI_Comm_size(comm, &nsize));
  snprintf(msg, sizeof msg, "%s: MPI_Comm_size", what);
  EXPECT_INT(msg, nsize, n);
  if (nrank < 0 || nrank >= n) fail("%s: MPI_Comm_rank gave %d", what, nrank);
  snprintf(msg, sizeof msg, "%s: world rank of new rank %d", what, nrank);
  EXPECT_INT(msg, members[nrank], rank);
  for (k = 0; k < n; k++) sum += members[k];
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, comm));
  snprintf(msg, sizeof msg, "%s: MPI_Allreduce(SUM) of world ranks", what);
  EXPECT_INT(msg, got, sum);
  next = (nrank + 1) % n;
  prev = (nrank + n - 1) % n;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, next, TAG_RING, &in, 1, MPI_INT, prev, TAG_RING, comm,
                         MPI_STATUS_IGNORE));
  snprintf(msg, sizeof msg, "%s: ring value from new rank %d", what, prev);
  EXPECT_INT(msg, in, members[prev]);
}

static void free_group(MPI_Group *g, const char *what) {
  CHECK_MPI(MPI_Group_free(g));
  if (*g != MPI_GROUP_NULL) fail("MPI_Group_free(%s) did not set MPI_GROUP_NULL", what);
}

int main(int argc, char **argv) {
  MPI_Group world, evens, odds, reversed, g;
  int n_evens, n_odds, k, r, grank, *list, *members;
  char msg[200];

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  n_evens = (size + 1) / 2;
  n_odds = size / 2;
  list = malloc(sizeof(int) * (size_t)(size + 1));
  members = malloc(sizeof(int) * (size_t)(size + 1));
  if (list == NULL || members == NULL) fail("out of memory");

  /* 1. The world's group. */
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (k = 0; k < size; k++) members[k] = k;
  expect_members("world group", world, world, size, members);
  CHECK_MPI(MPI_Group_rank(world, &grank));
  EXPECT_INT("MPI_Group_rank(world group)", grank, rank);
  expect_group_compare("world, world", world, world, MPI_IDENT);

  /* 2. incl, excl. */
  for (k = 0; k < n_evens; k++) list[k] = 2 * k;
  CHECK_MPI(MPI_Group_incl(world, n_evens, list, &evens));
  expect_members("evens", evens, world, n_evens, list);
  CHECK_MPI(MPI_Group_rank(evens, &grank));
  EXPECT_INT("MPI_Group_rank(evens)", grank, rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED);
  CHECK_MPI(MPI_Group_excl(world, n_evens, list, &odds));
  for (k = 0; k < n_odds; k++) members[k] = 2 * k + 1;
  expect_members("odds", odds, world, n_odds, members);
  CHECK_MPI(MPI_Group_rank(odds, &grank));
  EXPECT_INT("MPI_Group_rank(odds)", grank, rank % 2 == 1 ? rank / 2 : MPI_UNDEFINED);
  for (k = 0; k < size; k++) list[k] = size - 1 - k;
  CHECK_MPI(MPI_Group_incl(world, size, list, &reversed));
  expect_members("reversed world", reversed, world, size, list);
  expect_group_compare("reversed, world", reversed, world, size == 1 ? MPI_IDENT : MPI_SIMILAR);
  expect_group_compare("evens, world", evens, world, size == 1 ? MPI_IDENT : MPI_UNEQUAL);
  /* The same by ranges: (0, last even, 2) includes the evens, and excludes them to give
   * the odds; (size - 1, 0, -1) is the reversed world. */
  {
    int evens_range[1][3] = {{0, 2 * (n_evens - 1), 2}};
    int reversed_range[1][3] = {{size - 1, 0, -1}};
    MPI_Group by_range;
    CHECK_MPI(MPI_Group_range_incl(world, 1, evens_range, &by_range));
    expect_group_compare("range_incl evens, evens", by_range, evens, MPI_IDENT);
    free_group(&by_range, "range_incl evens");
    CHECK_MPI(MPI_Group_range_excl(world, 1, evens_range, &by_range));
    expect_group_compare("range_excl evens, odds", by_range, odds, MPI_IDENT);
    free_group(&by_range, "range_excl evens");
    CHECK_MPI(MPI_Group_range_incl(world, 1, reversed_range, &by_range));
    expect_group_compare("range_incl reversed, reversed", by_range, reversed, MPI_IDENT);
    free_group(&by_range, "range_incl reversed");
  }

  /* 3. translate_ranks. */
  for (k = 0; k < size; k++) list[k] = k;
  list[size] = MPI_PROC_NULL;
  CHECK_MPI(MPI_Group_translate_ranks(world, size + 1, list, evens, members));
  for (k = 0; k <= size; k++) {
    int exp = k == size ? MPI_PROC_NULL : k % 2 == 0 ? k / 2 : MPI_UNDEFINED;
    snprintf(msg, sizeof msg, "translate world rank %d to evens", list[k]);
    EXPECT_INT(msg, members[k], exp);
  }
  CHECK_MPI(MPI_Group_translate_ranks(world, size, list, reversed, members));
  for (k = 0; k < size; k++) {
    snprintf(msg, sizeof msg, "translate world rank %d to reversed world", k);
    EXPECT_INT(msg, members[k], size - 1 - k);
  }

  /* 4. Set operations. */
  CHECK_MPI(MPI_Group_union(evens, odds, &g));
  for (k = 0; k < n_evens; k++) members[k] = 2 * k;
  for (k = 0; k < n_odds; k++) members[n_evens + k] = 2 * k + 1;
  expect_members("union(evens, odds)", g, world, size, members);
  expect_group_compare("union(evens, odds), world", g, world, size <= 2 ? MPI_IDENT : MPI_SIMILAR);
  free_group(&g, "union(evens, odds)");
  CHECK_MPI(MPI_Group_union(odds, evens, &g));
  for (k = 0; k < n_odds; k++) members[k] = 2 * k + 1;
  for (k = 0; k < n_evens; k++) members[n_odds + k] = 2 * k;
  expect_members("union(odds, evens)", g, world, size, members);
  free_group(&g, "union(odds, evens)");
  CHECK_MPI(MPI_Group_intersection(evens, reversed, &g));
  expect_group_compare("intersection(evens, reversed), evens", g, evens, MPI_IDENT);
  free_group(&g, "intersection(evens, reversed)");
  CHECK_MPI(MPI_Group_intersection(evens, odds, &g));
  expect_members("intersection(evens, odds)", g, world, 0, members);
  expect_group_compare("intersection(evens, odds), MPI_GROUP_EMPTY", g, MPI_GROUP_EMPTY, MPI_IDENT);
  free_group(&g, "intersection(evens, odds)");
  CHECK_MPI(MPI_Group_difference(world, evens, &g));
  expect_group_compare("difference(world, evens), odds", g, odds, MPI_IDENT);
  free_group(&g, "difference(world, evens)");
  CHECK_MPI(MPI_Group_difference(world, world, &g));
  expect_members("difference(world, world)", g, world, 0, members);
  free_group(&g, "difference(world, world)");

  /* 5. Errors, returned. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  {
    int bad = size, cls = -1, rc, gsize = -1;
    MPI_Group none = MPI_GROUP_NULL;
    rc = MPI_Group_incl(world, 1, &bad, &g);
    if (rc == MPI_SUCCESS) fail("MPI_Group_incl of rank %d succeeded", size);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    EXPECT_INT("MPI_Group_incl of rank N: error class", cls, MPI_ERR_RANK);
    rc = MPI_Group_size(none, &gsize);
    if (rc == MPI_SUCCESS) fail("MPI_Group_size(MPI_GROUP_NULL) succeeded");
    CHECK_MPI(MPI_Error_class(rc, &cls));
    EXPECT_INT("MPI_Group_size(MPI_GROUP_NULL): error class", cls, MPI_ERR_GROUP);
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));

  /* 6. MPI_Comm_create. */
  {
    MPI_Comm even_comm = MPI_COMM_WORLD, rev_comm = MPI_COMM_WORLD, none = MPI_COMM_WORLD;
    MPI_Group cg;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm));
    if (rank % 2 == 1) {
      if (even_comm != MPI_COMM_NULL) fail("MPI_Comm_create(evens) on an odd rank: not null");
    } else {
      if (even_comm == MPI_COMM_NULL) fail("MPI_Comm_create(evens) on an even rank: null");
      for (k = 0; k < n_evens; k++) members[k] = 2 * k;
      exercise("MPI_Comm_create(evens)", even_comm, n_evens, members);
      CHECK_MPI(MPI_Comm_group(even_comm, &cg));
      expect_group_compare("group of MPI_Comm_create(evens), evens", cg, evens, MPI_IDENT);
      free_group(&cg, "group of MPI_Comm_create(evens)");
      CHECK_MPI(MPI_Comm_free(&even_comm));
      if (even_comm != MPI_COMM_NULL) fail("MPI_Comm_free did not set MPI_COMM_NULL");
    }
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, reversed, &rev_comm));
    if (rev_comm == MPI_COMM_NULL) fail("MPI_Comm_create(reversed world) gave MPI_COMM_NULL");
    for (k = 0; k < size; k++) members[k] = size - 1 - k;
    exercise("MPI_Comm_create(reversed world)", rev_comm, size, members);
    CHECK_MPI(MPI_Comm_rank(rev_comm, &r));
    EXPECT_INT("MPI_Comm_create(reversed world): new rank", r, size - 1 - rank);
    CHECK_MPI(MPI_Comm_free(&rev_comm));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &none));
    if (none != MPI_COMM_NULL) fail("MPI_Comm_create(MPI_GROUP_EMPTY) did not give null");
  }

  /* 7. MPI_Comm_create_group, each half on its own. */
  {
    int half = (size + 1) / 2, first = rank < half, lo = first ? 0 : half,
        n = first ? half : size - half, v;
    MPI_Group mine;
    MPI_Comm comm = MPI_COMM_NULL, none = MPI_COMM_WORLD;
    for (k = 0; k < n; k++) list[k] = lo + k;
    CHECK_MPI(MPI_Group_incl(world, n, list, &mine));
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, TAG_CREATE, &comm));
    if (comm == MPI_COMM_NULL) fail("MPI_Comm_create_group of its half gave MPI_COMM_NULL");
    exercise(first ? "MPI_Comm_create_group(first half)" : "MPI_Comm_create_group(second half)",
             comm, n, list);
    v = rank == lo ? 1000 + lo : -1;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
    EXPECT_INT("MPI_Bcast in the half from its rank 0", v, 1000 + lo);
    CHECK_MPI(MPI_Comm_free(&comm));
    free_group(&mine, "the half");
    if (rank == size - 1) {
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, TAG_CREATE, &none));
      if (none != MPI_COMM_NULL) fail("MPI_Comm_create_group(MPI_GROUP_EMPTY) did not give null");
    }
  }

  /* 8. Free. */
  free_group(&reversed, "reversed world");
  free_group(&odds, "odds");
  free_group(&evens, "evens");
  free_group(&world, "world group");
  free(list);
  free(members);

  finalize_and_report(size);
  return 0;
}

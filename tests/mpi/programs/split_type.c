/*
 * split_type.c - MPI_Comm_split_type with MPI_COMM_TYPE_SHARED.
 *
 * Checks, with every rank on one machine (the processor names, gathered
 * over MPI_COMM_WORLD, must all be equal, or the program fails):
 *   1. MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, key = rank,
 *      MPI_INFO_NULL): one communicator of every rank, rank = world rank,
 *      MPI_CONGRUENT to MPI_COMM_WORLD; MPI_Allreduce(SUM) of the world ranks
 *      inside and a MPI_Bcast from its rank 0.
 *   2. key = -rank: the same ranks in reverse order (new rank N-1-rank);
 *      MPI_Allreduce(MAX) of the new ranks is N-1.
 *   3. split_type MPI_UNDEFINED on rank 0: MPI_COMM_NULL there; the others
 *      get a communicator of N-1 ranks (new rank = rank-1), Allreduce inside.
 *   4. Splitting a parity half (from MPI_Comm_split) by type gives the half
 *      again (MPI_CONGRUENT to it), with MPI_INFO_ENV as the info.
 *   5. MPI_Comm_free sets the handles to MPI_COMM_NULL.
 *
 * Prints "split_type: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "split_type"
#include "check.h"

static int rank, size;

static void expect_compare(const char *what, MPI_Comm a, MPI_Comm b, int exp) {
  int r = -12345;
  CHECK_MPI(MPI_Comm_compare(a, b, &r));
  if (r != exp) fail("MPI_Comm_compare(%s): got %d, expected %d", what, r, exp);
}

static void free_comm(MPI_Comm *comm, const char *what) {
  CHECK_MPI(MPI_Comm_free(comm));
  if (*comm != MPI_COMM_NULL) fail("MPI_Comm_free(%s) did not set MPI_COMM_NULL", what);
}

int main(int argc, char **argv) {
  MPI_Comm shared, reversed, undef, parity, parity_shared;
  char name[MPI_MAX_PROCESSOR_NAME], *names;
  int len = 0, k, nrank = -1, nsize = -1, got = -1, v;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* This program expects one machine. */
  memset(name, 0, sizeof name);
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  if (names == NULL) fail("out of memory");
  CHECK_MPI(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                          MPI_CHAR, MPI_COMM_WORLD));
  for (k = 0; k < size; k++) {
    if (strncmp(names + (size_t)k * MPI_MAX_PROCESSOR_NAME, name, MPI_MAX_PROCESSOR_NAME) != 0)
      fail("rank %d runs on %s and this rank on %s: this program needs one machine", k,
           names + (size_t)k * MPI_MAX_PROCESSOR_NAME, name);
  }
  free(names);

  /* 1. Every rank in one shared-memory communicator. */
  CHECK_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
  if (shared == MPI_COMM_NULL) fail("MPI_Comm_split_type(SHARED) gave MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_rank(shared, &nrank));
  CHECK_MPI(MPI_Comm_size(shared, &nsize));
  EXPECT_INT("shared: size", nsize, size);
  EXPECT_INT("shared: rank", nrank, rank);
  expect_compare("shared, MPI_COMM_WORLD", shared, MPI_COMM_WORLD, MPI_CONGRUENT);
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, shared));
  EXPECT_INT("shared: MPI_Allreduce(SUM) of world ranks", got, size * (size - 1) / 2);
  v = nrank == 0 ? 4242 : -1;
  CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, shared));
  EXPECT_INT("shared: MPI_Bcast from rank 0", v, 4242);

  /* 2. Keys order the ranks. */
  CHECK_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &reversed));
  CHECK_MPI(MPI_Comm_rank(reversed, &nrank));
  EXPECT_INT("reversed: rank", nrank, size - 1 - rank);
  CHECK_MPI(MPI_Allreduce(&nrank, &got, 1, MPI_INT, MPI_MAX, reversed));
  EXPECT_INT("reversed: MPI_Allreduce(MAX) of new ranks", got, size - 1);

  /* 3. MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                rank, MPI_INFO_NULL, &undef));
  if (rank == 0) {
    if (undef != MPI_COMM_NULL) fail("split_type MPI_UNDEFINED did not give MPI_COMM_NULL");
  } else {
    if (undef == MPI_COMM_NULL) fail("MPI_Comm_split_type without rank 0 gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_rank(undef, &nrank));
    CHECK_MPI(MPI_Comm_size(undef, &nsize));
    EXPECT_INT("without rank 0: size", nsize, size - 1);
    EXPECT_INT("without rank 0: rank", nrank, rank - 1);
    CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, undef));
    EXPECT_INT("without rank 0: MPI_Allreduce(SUM) of world ranks", got, size * (size - 1) / 2);
    free_comm(&undef, "the split without rank 0");
  }

  /* 4. A split of a split. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity));
  CHECK_MPI(MPI_Comm_split_type(parity, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_ENV, &parity_shared));
  if (parity_shared == MPI_COMM_NULL) fail("MPI_Comm_split_type of a parity half gave null");
  expect_compare("split_type of a parity half, the half", parity_shared, parity, MPI_CONGRUENT);
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_MIN, parity_shared));
  EXPECT_INT("parity half by type: MPI_Allreduce(MIN) of world ranks", got, rank % 2);

  /* 5. Free. */
  free_comm(&parity_shared, "the parity half by type");
  free_comm(&parity, "the parity half");
  free_comm(&reversed, "reversed");
  free_comm(&shared, "shared");

  finalize_and_report(size);
  return 0;
}

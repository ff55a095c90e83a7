/*
 * comm_create_disjoint.c - MPI_Comm_create with different, disjoint groups on
 * different ranks (MPI-2.2).
 *
 * Checks:
 *   1. The world is cut into runs of two consecutive ranks ({0,1}, {2,3}, ...);
 *      each rank passes its own run's group, listed in reverse order. Each rank
 *      gets a communicator of its run alone: size 2 (1 for a last odd rank),
 *      rank = the reverse of its place in the run; MPI_Allreduce(SUM) of world
 *      ranks gives the run's sum, and MPI_Comm_group of it matches the group.
 *   2. Only the even ranks form groups of one ({r}); the odd ranks pass
 *      MPI_GROUP_EMPTY and get MPI_COMM_NULL; the even ranks' communicators
 *      have size 1 and a working MPI_Bcast.
 *
 * Prints "comm_create_disjoint: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define PROGRAM "comm_create_disjoint"
#include "check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  MPI_Group world_group;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));

  /* 1. Runs of two, each listed in reverse. */
  int first = rank - rank % 2;
  int n = first + 1 < size ? 2 : 1;
  int members[2] = {first + n - 1, first};
  MPI_Group run;
  CHECK_MPI(MPI_Group_incl(world_group, n, members, &run));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, run, &comm));
  if (comm == MPI_COMM_NULL) fail("run: got MPI_COMM_NULL for a member of the group");
  int nrank = -1, nsize = -1;
  CHECK_MPI(MPI_Comm_size(comm, &nsize));
  CHECK_MPI(MPI_Comm_rank(comm, &nrank));
  EXPECT_INT("run: MPI_Comm_size", nsize, n);
  EXPECT_INT("run: MPI_Comm_rank", nrank, first + n - 1 - rank);
  int sum = -1;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  EXPECT_INT("run: MPI_Allreduce", sum, n == 2 ? 2 * first + 1 : first);
  MPI_Group got;
  int cmp = -1;
  CHECK_MPI(MPI_Comm_group(comm, &got));
  CHECK_MPI(MPI_Group_compare(got, run, &cmp));
  EXPECT_INT("run: MPI_Group_compare(MPI_Comm_group, group)", cmp, MPI_IDENT);
  CHECK_MPI(MPI_Group_free(&got));
  CHECK_MPI(MPI_Group_free(&run));
  CHECK_MPI(MPI_Comm_free(&comm));

  /* 2. Groups of one on even ranks, MPI_GROUP_EMPTY on odd ones. */
  MPI_Group alone = MPI_GROUP_EMPTY;
  if (rank % 2 == 0) CHECK_MPI(MPI_Group_incl(world_group, 1, &rank, &alone));
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, alone, &comm));
  if (rank % 2 == 1) {
    if (comm != MPI_COMM_NULL) fail("alone: expected MPI_COMM_NULL outside every group");
  } else {
    if (comm == MPI_COMM_NULL) fail("alone: got MPI_COMM_NULL for a member of the group");
    CHECK_MPI(MPI_Comm_size(comm, &nsize));
    EXPECT_INT("alone: MPI_Comm_size", nsize, 1);
    int value = rank == 0 ? 77 : rank;
    CHECK_MPI(MPI_Bcast(&value, 1, MPI_INT, 0, comm));
    EXPECT_INT("alone: MPI_Bcast", value, rank == 0 ? 77 : rank);
    CHECK_MPI(MPI_Comm_free(&comm));
    CHECK_MPI(MPI_Group_free(&alone));
  }
  CHECK_MPI(MPI_Group_free(&world_group));
  finalize_and_report(size);
  return 0;
}

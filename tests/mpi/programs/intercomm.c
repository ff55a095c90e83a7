/*
 * intercomm.c - intercommunicators: MPI_Intercomm_create, the local and remote
 * groups, point-to-point between the groups, MPI_Comm_dup, _split, _create and
 * _compare on an intercommunicator, MPI_Intercomm_merge, MPI_Comm_get_parent
 * and MPI_Comm_disconnect.
 *
 * The world is cut into a low half (ranks 0 .. size/2-1, color 0) and a high
 * half (the rest, color 1); their leaders are world ranks 0 and size/2.
 * With one rank only MPI_Comm_test_inter(MPI_COMM_WORLD) is checked.
 *
 * Checks:
 *   1. MPI_Comm_test_inter is 1; MPI_Comm_size/rank give the local group's,
 *      MPI_Comm_remote_size the other half's; MPI_Comm_remote_group translates
 *      to the other half's world ranks.
 *   2. Local rank i sends its world rank to remote rank i % remote_size; each
 *      rank receives its messages with MPI_ANY_SOURCE, and status.MPI_SOURCE
 *      (a remote rank) and the value agree. Then MPI_Sendrecv between local
 *      and remote rank i, and MPI_Irecv from a named remote rank.
 *   3. MPI_Comm_dup gives an intercommunicator, MPI_CONGRUENT to the first;
 *      its messages do not meet the first one's.
 *   4. MPI_Comm_split(color = local rank % 2, key = -local rank): local and
 *      remote sizes are each side's count of that parity, ranks reversed;
 *      MPI_COMM_NULL when the other side has no such rank.
 *   5. MPI_Comm_create with the group of local rank 0: an intercommunicator of
 *      the two leaders; MPI_COMM_NULL elsewhere.
 *   6. MPI_Intercomm_merge: with high = color the low half comes first (merged
 *      rank = world rank), with high = !color the high half does.
 *   7. MPI_Comm_get_parent gives MPI_COMM_NULL; MPI_Comm_disconnect of the
 *      duplicate sets it to MPI_COMM_NULL.
 *
 * Prints "intercomm: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define PROGRAM "intercomm"
#include "check.h"

static int rank, size, low, color, lsize, rsize, lrank, lfirst, rfirst;

/* World rank of local rank i, and of remote rank j. */
static int local_world(int i) { return lfirst + i; }
static int remote_world(int j) { return rfirst + j; }

static void check_sizes(const char *what, MPI_Comm comm, int exp_size, int exp_rank,
                        int exp_remote) {
  int flag = -1, n = -1, r = -1, rn = -1;
  char buf[200];
  CHECK_MPI(MPI_Comm_test_inter(comm, &flag));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_test_inter", what);
  EXPECT_INT(buf, flag, 1);
  CHECK_MPI(MPI_Comm_size(comm, &n));
  CHECK_MPI(MPI_Comm_rank(comm, &r));
  CHECK_MPI(MPI_Comm_remote_size(comm, &rn));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_size", what);
  EXPECT_INT(buf, n, exp_size);
  snprintf(buf, sizeof buf, "%s: MPI_Comm_rank", what);
  EXPECT_INT(buf, r, exp_rank);
  snprintf(buf, sizeof buf, "%s: MPI_Comm_remote_size", what);
  EXPECT_INT(buf, rn, exp_remote);
}

static void point_to_point(const char *what, MPI_Comm inter, int tag) {
  char buf[200];
  MPI_Request req;
  MPI_Status st;
  int mine = rank, value = -1, expected_count = 0, j;
  CHECK_MPI(MPI_Isend(&mine, 1, MPI_INT, lrank % rsize, tag, inter, &req));
  for (j = 0; j < rsize; ++j) /* remote ranks j with j % lsize == lrank send here */
    if (j % lsize == lrank) ++expected_count;
  for (j = 0; j < expected_count; ++j) {
    CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st));
    snprintf(buf, sizeof buf, "%s: MPI_ANY_SOURCE receive %d", what, j);
    if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= rsize || st.MPI_SOURCE % lsize != lrank)
      fail("%s: status.MPI_SOURCE %d is not a remote rank that sends here", buf, st.MPI_SOURCE);
    EXPECT_INT(buf, value, remote_world(st.MPI_SOURCE));
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

  if (lrank < rsize) {
    int out = 1000 + rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, lrank, tag + 1, &in, 1, MPI_INT, lrank, tag + 1, inter,
                           &st));
    snprintf(buf, sizeof buf, "%s: MPI_Sendrecv", what);
    EXPECT_INT(buf, in, 1000 + remote_world(lrank));
    expect_status(buf, &st, lrank, tag + 1, MPI_INT, 1);
  }
  /* Remote rank 0 sends to every rank; each receives it with a named source. */
  if (lrank == 0) {
    for (j = 0; j < rsize; ++j) {
      int out = 2000 + j;
      CHECK_MPI(MPI_Send(&out, 1, MPI_INT, j, tag + 2, inter));
    }
  }
  CHECK_MPI(MPI_Irecv(&value, 1, MPI_INT, 0, tag + 2, inter, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  snprintf(buf, sizeof buf, "%s: MPI_Irecv from remote rank 0", what);
  EXPECT_INT(buf, value, 2000 + lrank);
  expect_status(buf, &st, 0, tag + 2, MPI_INT, 1);
}

int main(int argc, char **argv) {
  int flag = -1, cmp = -1, j;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  EXPECT_INT("MPI_Comm_test_inter(MPI_COMM_WORLD)", flag, 0);
  if (size < 2) {
    finalize_and_report(size);
    return 0;
  }
  low = size / 2;
  color = rank < low ? 0 : 1;
  lfirst = color == 0 ? 0 : low;
  rfirst = color == 0 ? low : 0;
  lsize = color == 0 ? low : size - low;
  rsize = size - lsize;
  lrank = rank - lfirst;

  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rfirst, 99, &inter));

  /* 1. */
  check_sizes("intercomm", inter, lsize, lrank, rsize);
  MPI_Group remote, world_group;
  int ranks[64], translated[64];
  CHECK_MPI(MPI_Comm_remote_group(inter, &remote));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  for (j = 0; j < rsize; ++j) ranks[j] = j;
  CHECK_MPI(MPI_Group_translate_ranks(remote, rsize, ranks, world_group, translated));
  for (j = 0; j < rsize; ++j)
    EXPECT_INT("remote group's world rank", translated[j], remote_world(j));
  CHECK_MPI(MPI_Group_free(&remote));
  MPI_Group local;
  CHECK_MPI(MPI_Comm_group(inter, &local));
  for (j = 0; j < lsize; ++j) ranks[j] = j;
  CHECK_MPI(MPI_Group_translate_ranks(local, lsize, ranks, world_group, translated));
  for (j = 0; j < lsize; ++j) EXPECT_INT("local group's world rank", translated[j], local_world(j));
  CHECK_MPI(MPI_Group_free(&local));

  /* 2. */
  point_to_point("intercomm", inter, 10);

  /* 3. The duplicate's message is sent first but received second. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(inter, &dup));
  check_sizes("dup", dup, lsize, lrank, rsize);
  CHECK_MPI(MPI_Comm_compare(inter, dup, &cmp));
  EXPECT_INT("MPI_Comm_compare(intercomm, dup)", cmp, MPI_CONGRUENT);
  CHECK_MPI(MPI_Comm_compare(inter, half, &cmp));
  EXPECT_INT("MPI_Comm_compare(intercomm, local half)", cmp, MPI_UNEQUAL);
  if (lrank < rsize) {
    int a = 1, b = 2, got_a = -1, got_b = -1;
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, lrank, 3, dup, &reqs[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, lrank, 3, inter, &reqs[1]));
    CHECK_MPI(MPI_Recv(&got_b, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&got_a, 1, MPI_INT, MPI_ANY_SOURCE, 3, dup, MPI_STATUS_IGNORE));
    EXPECT_INT("dup: message on intercomm", got_b, 2);
    EXPECT_INT("dup: message on dup", got_a, 1);
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  }
  point_to_point("dup", dup, 20);

  /* 4. */
  MPI_Comm split;
  CHECK_MPI(MPI_Comm_split(inter, lrank % 2, -lrank, &split));
  {
    int parity = lrank % 2;
    int lcount = (lsize - parity + 1) / 2, rcount = (rsize - parity + 1) / 2;
    if (rcount == 0) {
      if (split != MPI_COMM_NULL) fail("split: expected MPI_COMM_NULL without remote partners");
    } else {
      if (split == MPI_COMM_NULL) fail("split: got MPI_COMM_NULL");
      check_sizes("split", split, lcount, lcount - 1 - lrank / 2, rcount);
      int out = rank, in = -1;
      /* Reversed order on both sides: remote rank k is remote parity rank rcount-1-k. */
      int peer = (lcount - 1 - lrank / 2) % rcount;
      int recvs = 0;
      MPI_Request req;
      CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, peer, 4, split, &req));
      for (j = 0; j < rcount; ++j)
        if (j % lcount == lcount - 1 - lrank / 2) ++recvs;
      for (j = 0; j < recvs; ++j) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 4, split, &st));
        EXPECT_INT("split: value from remote rank", in,
                   remote_world(parity + 2 * (rcount - 1 - st.MPI_SOURCE)));
      }
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Comm_free(&split));
    }
  }

  /* 5. */
  MPI_Group inter_group, leader;
  int zero = 0;
  MPI_Comm leaders;
  CHECK_MPI(MPI_Comm_group(inter, &inter_group));
  CHECK_MPI(MPI_Group_incl(inter_group, 1, &zero, &leader));
  CHECK_MPI(MPI_Comm_create(inter, leader, &leaders));
  if (lrank != 0) {
    if (leaders != MPI_COMM_NULL) fail("create: expected MPI_COMM_NULL outside the group");
  } else {
    if (leaders == MPI_COMM_NULL) fail("create: got MPI_COMM_NULL for a leader");
    check_sizes("create", leaders, 1, 0, 1);
    int out = rank, in = -1;
    CHECK_MPI(
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, leaders, MPI_STATUS_IGNORE));
    EXPECT_INT("create: leaders swap world ranks", in, rfirst);
    CHECK_MPI(MPI_Comm_free(&leaders));
  }
  CHECK_MPI(MPI_Group_free(&leader));
  CHECK_MPI(MPI_Group_free(&inter_group));

  /* 6. */
  for (j = 0; j < 2; ++j) {
    int high = j == 0 ? color : !color;
    MPI_Comm merged;
    int mrank = -1, msize = -1, sum = -1;
    CHECK_MPI(MPI_Intercomm_merge(inter, high, &merged));
    CHECK_MPI(MPI_Comm_size(merged, &msize));
    CHECK_MPI(MPI_Comm_rank(merged, &mrank));
    CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
    EXPECT_INT("merge: MPI_Comm_test_inter", flag, 0);
    EXPECT_INT("merge: MPI_Comm_size", msize, size);
    if (j == 0) {
      EXPECT_INT("merge (low half first): MPI_Comm_rank", mrank, rank);
    } else {
      EXPECT_INT("merge (high half first): MPI_Comm_rank", mrank,
                 color == 1 ? lrank : (size - low) + lrank);
    }
    CHECK_MPI(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    EXPECT_INT("merge: MPI_Allreduce of merged ranks", sum, size * (size - 1) / 2);
    CHECK_MPI(MPI_Comm_free(&merged));
  }

  /* 7. */
  MPI_Comm parent = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  if (parent != MPI_COMM_NULL) fail("MPI_Comm_get_parent: expected MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_disconnect(&dup));
  if (dup != MPI_COMM_NULL) fail("MPI_Comm_disconnect: expected MPI_COMM_NULL afterwards");

  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
  finalize_and_report(size);
  return 0;
}

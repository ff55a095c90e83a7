/*
 * intercomm_collectives.c - every collective on an intercommunicator, blocking
 * and non-blocking (MPI_Ixxx then MPI_Wait), checked against values every rank
 * computes itself.
 *
 * The world is cut into a low half (ranks 0 .. size/2-1) and a high half; the
 * intercommunicator joins them. Rooted collectives run twice: rooted at the
 * low half's last rank, then at the high half's rank 0 (MPI_ROOT there,
 * MPI_PROC_NULL for the rest of the root's half, the root's rank for the other
 * half). Rank r's value k is val(r, k) = 1000 * r + k, with r its world rank.
 *
 *   Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v): each receiver gets
 *     the values of the other half's ranks in their rank order (the v-forms:
 *     remote rank j gives j + 1 values, placed with gaps).
 *   Reduce, Allreduce (MPI_SUM, and MPI_MAX): the sum (max) over the other half.
 *   Reduce_scatter_block, Reduce_scatter: the other half's sums, local rank i
 *     getting block i (Reduce_scatter: i + 1 values).
 *   Barrier.
 * With one rank there is no intercommunicator: nothing is checked.
 *
 * Prints "intercomm_collectives: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "intercomm_collectives"
#include "check.h"

#define MAXV 64

static int rank, size, low, color, lsize, rsize, lrank, lfirst, rfirst;
static MPI_Comm inter;

static int val(int r, int k) { return 1000 * r + k; }
static int remote_world(int j) { return rfirst + j; }
static int local_world(int i) { return lfirst + i; }

/* Waits for a non-blocking collective's request. */
static void done(MPI_Request *req) { CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE)); }

static void expect_array(const char *what, int nb, const int *got, const int *exp, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (got[i] != exp[i])
      fail("%s%s: element %d: got %d, expected %d", nb ? "I" : "", what, i, got[i], exp[i]);
}

/* The root argument of a rooted collective whose root is rank `root_local` of the half
 * `root_color`. */
static int root_arg(int root_color, int root_local) {
  if (color != root_color) return root_local;
  return lrank == root_local ? MPI_ROOT : MPI_PROC_NULL;
}

static void rooted(int nb, int root_color, int root_local) {
  int root = root_arg(root_color, root_local);
  int is_root = root == MPI_ROOT, receives_from_root = color != root_color;
  int root_world = root_color == 0 ? root_local : low + root_local;
  int buf[MAXV], exp[MAXV], send[MAXV], counts[MAXV], displs[MAXV], j, k;
  MPI_Request req;

  /* Bcast */
  for (k = 0; k < 3; ++k) buf[k] = is_root ? val(rank, k) : -1;
  if (nb) {
    CHECK_MPI(MPI_Ibcast(buf, 3, MPI_INT, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Bcast(buf, 3, MPI_INT, root, inter));
  }
  if (receives_from_root) {
    for (k = 0; k < 3; ++k) exp[k] = val(root_world, k);
    expect_array("Bcast", nb, buf, exp, 3);
  }

  /* Gather: 2 values from each remote rank. */
  for (k = 0; k < 2; ++k) send[k] = val(rank, k);
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Igather(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Gather(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter));
  }
  if (is_root) {
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), k);
    expect_array("Gather", nb, buf, exp, 2 * rsize);
  }

  /* Gatherv: remote rank j gives j + 1 values, at displacement 3 * j. */
  for (k = 0; k < lrank + 1; ++k) send[k] = val(rank, k);
  for (j = 0; j < rsize; ++j) {
    counts[j] = j + 1;
    displs[j] = 3 * j;
  }
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(
        MPI_Igatherv(send, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Gatherv(send, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, inter));
  }
  if (is_root) {
    for (k = 0; k < 3 * rsize; ++k) exp[k] = -1;
    for (j = 0; j < rsize; ++j)
      for (k = 0; k <= j; ++k) exp[3 * j + k] = val(remote_world(j), k);
    expect_array("Gatherv", nb, buf, exp, 3 * rsize);
  }

  /* Scatter: remote rank j gets values 2j, 2j+1 of the root. */
  for (k = 0; k < 2 * rsize; ++k) send[k] = val(rank, k);
  buf[0] = buf[1] = -1;
  if (nb) {
    CHECK_MPI(MPI_Iscatter(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Scatter(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter));
  }
  if (receives_from_root) {
    for (k = 0; k < 2; ++k) exp[k] = val(root_world, 2 * lrank + k);
    expect_array("Scatter", nb, buf, exp, 2);
  }

  /* Scatterv: remote rank j gets j + 1 values from displacement 3 * j. */
  for (k = 0; k < 3 * rsize; ++k) send[k] = val(rank, k);
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(
        MPI_Iscatterv(send, counts, displs, MPI_INT, buf, lrank + 1, MPI_INT, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Scatterv(send, counts, displs, MPI_INT, buf, lrank + 1, MPI_INT, root, inter));
  }
  if (receives_from_root) {
    for (k = 0; k <= lrank; ++k) exp[k] = val(root_world, 3 * lrank + k);
    expect_array("Scatterv", nb, buf, exp, lrank + 1);
  }

  /* Reduce: MPI_SUM of 3 values over the other half. */
  for (k = 0; k < 3; ++k) {
    send[k] = val(rank, k);
    buf[k] = -1;
  }
  if (nb) {
    CHECK_MPI(MPI_Ireduce(send, buf, 3, MPI_INT, MPI_SUM, root, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Reduce(send, buf, 3, MPI_INT, MPI_SUM, root, inter));
  }
  if (is_root) {
    for (k = 0; k < 3; ++k) {
      exp[k] = 0;
      for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), k);
    }
    expect_array("Reduce", nb, buf, exp, 3);
  }
}

static void all(int nb) {
  int buf[MAXV], exp[MAXV], send[MAXV], scounts[MAXV], sdispls[MAXV], rcounts[MAXV], rdispls[MAXV],
      j, k;
  MPI_Request req;

  if (nb) {
    CHECK_MPI(MPI_Ibarrier(inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Barrier(inter));
  }

  /* Allgather: 2 values from each remote rank. */
  for (k = 0; k < 2; ++k) send[k] = val(rank, k);
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Iallgather(send, 2, MPI_INT, buf, 2, MPI_INT, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Allgather(send, 2, MPI_INT, buf, 2, MPI_INT, inter));
  }
  for (j = 0; j < rsize; ++j)
    for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), k);
  expect_array("Allgather", nb, buf, exp, 2 * rsize);

  /* Allgatherv: remote rank j gives j + 1 values, at 3 * j. */
  for (k = 0; k <= lrank; ++k) send[k] = val(rank, k);
  for (j = 0; j < rsize; ++j) {
    rcounts[j] = j + 1;
    rdispls[j] = 3 * j;
  }
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(
        MPI_Iallgatherv(send, lrank + 1, MPI_INT, buf, rcounts, rdispls, MPI_INT, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Allgatherv(send, lrank + 1, MPI_INT, buf, rcounts, rdispls, MPI_INT, inter));
  }
  for (k = 0; k < 3 * rsize; ++k) exp[k] = -1;
  for (j = 0; j < rsize; ++j)
    for (k = 0; k <= j; ++k) exp[3 * j + k] = val(remote_world(j), k);
  expect_array("Allgatherv", nb, buf, exp, 3 * rsize);

  /* Alltoall: block j (2 values) goes to remote rank j; value = val(rank, 10 * j + k). */
  for (j = 0; j < rsize; ++j)
    for (k = 0; k < 2; ++k) send[2 * j + k] = val(rank, 10 * j + k);
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Ialltoall(send, 2, MPI_INT, buf, 2, MPI_INT, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Alltoall(send, 2, MPI_INT, buf, 2, MPI_INT, inter));
  }
  for (j = 0; j < rsize; ++j)
    for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), 10 * lrank + k);
  expect_array("Alltoall", nb, buf, exp, 2 * rsize);

  /* Alltoallv: local rank i sends i + j + 1 values to remote rank j, from 4 * j;
   * receives from remote rank j j + i + 1 values, at 5 * j. */
  for (j = 0; j < rsize; ++j) {
    scounts[j] = lrank + j + 1;
    sdispls[j] = 4 * j;
    rcounts[j] = j + lrank + 1;
    rdispls[j] = 5 * j;
    for (k = 0; k < scounts[j]; ++k) send[4 * j + k] = val(rank, 10 * j + k);
  }
  for (k = 0; k < MAXV; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Ialltoallv(send, scounts, sdispls, MPI_INT, buf, rcounts, rdispls, MPI_INT, inter,
                             &req));
    done(&req);
  } else {
    CHECK_MPI(
        MPI_Alltoallv(send, scounts, sdispls, MPI_INT, buf, rcounts, rdispls, MPI_INT, inter));
  }
  for (k = 0; k < 5 * rsize; ++k) exp[k] = -1;
  for (j = 0; j < rsize; ++j)
    for (k = 0; k < rcounts[j]; ++k) exp[5 * j + k] = val(remote_world(j), 10 * lrank + k);
  expect_array("Alltoallv", nb, buf, exp, 5 * rsize);

  /* Allreduce: MPI_SUM and MPI_MAX over the other half. */
  for (k = 0; k < 3; ++k) send[k] = val(rank, k);
  for (k = 0; k < 3; ++k) buf[k] = -1;
  if (nb) {
    CHECK_MPI(MPI_Iallreduce(send, buf, 3, MPI_INT, MPI_SUM, inter, &req));
    done(&req);
  } else {
    CHECK_MPI(MPI_Allreduce(send, buf, 3, MPI_INT, MPI_SUM, inter));
  }
  for (k = 0; k < 3; ++k) {
    exp[k] = 0;
    for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), k);
  }
  expect_array("Allreduce(MPI_SUM)", nb, buf, exp, 3);
  CHECK_MPI(MPI_Allreduce(send, buf, 3, MPI_INT, MPI_MAX, inter));
  for (k = 0; k < 3; ++k) exp[k] = val(remote_world(rsize - 1), k);
  expect_array("Allreduce(MPI_MAX)", 0, buf, exp, 3);

  /* Reduce_scatter_block: each half's vector is lsize * 2 values (the same total on
   * both sides only when the halves are equal, so the other half's vector has
   * rsize * 2 values: the total must agree). Use a total both halves share: both
   * halves give counts whose sum is 2 * size. */
  {
    int total = 2 * size;
    /* Block form needs total = lsize * recvcount on both sides: only when equal halves. */
    if (lsize == rsize) {
      for (k = 0; k < 2 * lsize; ++k) send[k] = val(rank, k);
      buf[0] = buf[1] = -1;
      if (nb) {
        CHECK_MPI(MPI_Ireduce_scatter_block(send, buf, 2, MPI_INT, MPI_SUM, inter, &req));
        done(&req);
      } else {
        CHECK_MPI(MPI_Reduce_scatter_block(send, buf, 2, MPI_INT, MPI_SUM, inter));
      }
      for (k = 0; k < 2; ++k) {
        exp[k] = 0;
        for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), 2 * lrank + k);
      }
      expect_array("Reduce_scatter_block", nb, buf, exp, 2);
    }
    /* Reduce_scatter: local rank i gets a share of the total: the first lsize - 1
     * ranks get i + 1 values, the last the rest. */
    int before = 0;
    for (j = 0; j < lsize; ++j) {
      rcounts[j] = j < lsize - 1 ? j + 1 : total - before;
      before += rcounts[j];
    }
    before = 0;
    for (j = 0; j < lrank; ++j) before += rcounts[j];
    for (k = 0; k < total; ++k) send[k] = val(rank, k);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    if (nb) {
      CHECK_MPI(MPI_Ireduce_scatter(send, buf, rcounts, MPI_INT, MPI_SUM, inter, &req));
      done(&req);
    } else {
      CHECK_MPI(MPI_Reduce_scatter(send, buf, rcounts, MPI_INT, MPI_SUM, inter));
    }
    for (k = 0; k < rcounts[lrank]; ++k) {
      exp[k] = 0;
      for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), before + k);
    }
    expect_array("Reduce_scatter", nb, buf, exp, rcounts[lrank]);
  }
}

int main(int argc, char **argv) {
  int nb;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
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
  (void)local_world;

  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rfirst, 7, &inter));
  for (nb = 0; nb < 2; ++nb) {
    rooted(nb, 0, low - 1);
    rooted(nb, 1, 0);
    all(nb);
  }
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
  finalize_and_report(size);
  return 0;
}

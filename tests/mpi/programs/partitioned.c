/*
 * partitioned.c - partitioned communication (MPI-4): MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived, with MPI_Start,
 * MPI_Startall, MPI_Wait, MPI_Test and MPI_Request_free.
 *
 * Checks, on a ring (rank+1 receives what rank sends), for 1, 3 and 8 partitions of
 * 0, 4 and 40000 doubles each, over three rounds of the same requests:
 *   1. Before the send side starts, MPI_Parrived says no partition has arrived.
 *   2. Partitions are marked ready one by one (MPI_Pready, in reverse order), as a
 *      range, or as a list, round by round; MPI_Parrived then becomes true for every
 *      partition (polled, 30 s at most), and the data of every partition is the
 *      round's, element by element.
 *   3. MPI_Wait (or MPI_Test polling) completes both requests and leaves them
 *      allocated for the next round; the receive's status has the sender's rank and
 *      tag; MPI_Request_free frees them at the end.
 *   4. A vector datatype (every other double) on the receive side.
 *   5. MPI_Psend_init_c / MPI_Precv_init_c, and MPI_PROC_NULL peers.
 *
 * Prints "partitioned: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "partitioned"
#include "check.h"

#define TAG 17

static double value(int rank, int round, long i) { return rank * 1e6 + round * 1e4 + (double)i; }

static void poll_arrived(MPI_Request request, int partition) {
  int flag = 0;
  double start = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Parrived(request, partition, &flag));
    if (!flag && MPI_Wtime() - start > 30) fail("partition %d never arrived", partition);
  }
}

static void mark_ready(MPI_Request send, int partitions, int round) {
  switch (round % 3) {
    case 0:
      for (int p = partitions - 1; p >= 0; --p) CHECK_MPI(MPI_Pready(p, send));
      break;
    case 1:
      CHECK_MPI(MPI_Pready_range(0, partitions - 1, send));
      break;
    default: {
      int *list = xmalloc(sizeof(int) * (size_t)partitions);
      for (int p = 0; p < partitions; ++p) list[p] = (p * 5 + 3) % partitions;
      /* (5p + 3) mod n is a permutation when n is not a multiple of 5. */
      CHECK_MPI(MPI_Pready_list(partitions, list, send));
      free(list);
    }
  }
}

static void exchange(int rank, int size, int partitions, int count, int strided, int large) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long n = (long)partitions * count;
  int stride = strided ? 2 : 1;
  double *out = xmalloc(sizeof(double) * (size_t)n);
  double *in = xmalloc(sizeof(double) * (size_t)(n * stride));
  MPI_Datatype recv_type = MPI_DOUBLE;
  if (strided) {
    /* One element: a double followed by a gap of one double. */
    CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &recv_type));
    CHECK_MPI(MPI_Type_commit(&recv_type));
  }
  MPI_Request send, recv;
  if (large) {
    CHECK_MPI(MPI_Psend_init_c(out, partitions, count, MPI_DOUBLE, next, TAG, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &send));
    CHECK_MPI(MPI_Precv_init_c(in, partitions, count, recv_type, prev, TAG, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &recv));
  } else {
    CHECK_MPI(MPI_Psend_init(out, partitions, count, MPI_DOUBLE, next, TAG, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &send));
    CHECK_MPI(MPI_Precv_init(in, partitions, count, recv_type, prev, TAG, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &recv));
  }
  for (int round = 0; round < 3; ++round) {
    for (long i = 0; i < n; ++i) out[i] = value(rank, round, i);
    for (long i = 0; i < n * stride; ++i) in[i] = -1;
    CHECK_MPI(MPI_Start(&recv));
    for (int p = 0; p < partitions && count > 0; ++p) {
      int flag = 1;
      CHECK_MPI(MPI_Parrived(recv, p, &flag));
      EXPECT_INT("MPI_Parrived before the send started", flag, 0);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (round == 1) {
      CHECK_MPI(MPI_Start(&send));
    } else {
      MPI_Request both[1] = {send};
      CHECK_MPI(MPI_Startall(1, both));
    }
    mark_ready(send, partitions, round);
    for (int p = 0; p < partitions; ++p) poll_arrived(recv, p);
    for (long i = 0; i < n * stride; ++i) {
      double expected = i % stride ? -1 : value(prev, round, i / stride);
      if (in[i] != expected)
        fail("%d partitions of %d, round %d: element %ld is %g, expected %g", partitions, count,
             round, i, in[i], expected);
    }
    MPI_Status status;
    if (round == 2) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Test(&recv, &flag, &status));
    } else {
      CHECK_MPI(MPI_Wait(&recv, &status));
    }
    EXPECT_INT("partitioned receive status.MPI_SOURCE", status.MPI_SOURCE, prev);
    EXPECT_INT("partitioned receive status.MPI_TAG", status.MPI_TAG, TAG);
    CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
    if (send == MPI_REQUEST_NULL || recv == MPI_REQUEST_NULL)
      fail("a completed partitioned request was freed");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
  if (send != MPI_REQUEST_NULL || recv != MPI_REQUEST_NULL)
    fail("MPI_Request_free left a request set");
  if (strided) CHECK_MPI(MPI_Type_free(&recv_type));
  free(out);
  free(in);
}

static void proc_null(void) {
  double buf[4] = {1, 2, 3, 4};
  MPI_Request send, recv;
  CHECK_MPI(MPI_Psend_init(buf, 2, 2, MPI_DOUBLE, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &send));
  CHECK_MPI(MPI_Precv_init(buf, 2, 2, MPI_DOUBLE, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &recv));
  for (int round = 0; round < 2; ++round) {
    MPI_Request both[2] = {send, recv};
    CHECK_MPI(MPI_Startall(2, both));
    CHECK_MPI(MPI_Pready_range(0, 1, send));
    poll_arrived(recv, 1);
    MPI_Status status;
    CHECK_MPI(MPI_Wait(&recv, &status));
    expect_status("partitioned receive from MPI_PROC_NULL", &status, MPI_PROC_NULL, MPI_ANY_TAG,
                  MPI_DOUBLE, 0);
    CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
  }
  EXPECT_INT("untouched buffer", (int)(buf[0] + buf[3]), 5);
  CHECK_MPI(MPI_Request_free(&send));
  CHECK_MPI(MPI_Request_free(&recv));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  const int partition_counts[3] = {1, 3, 8};
  const int element_counts[3] = {0, 4, 40000};
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      exchange(rank, size, partition_counts[a], element_counts[b], 0, 0);
      exchange(rank, size, partition_counts[a], element_counts[b], b == 1, 1);
    }
  }
  proc_null();
  finalize_and_report(size);
  return 0;
}

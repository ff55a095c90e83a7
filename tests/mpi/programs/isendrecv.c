/*
 * isendrecv.c - MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4), and their large-count
 * forms.
 *
 * Checks:
 *   1. A ring: every rank sends n ints to rank+1 and receives from rank-1 with
 *      MPI_Isendrecv, for a small n and a large one (the rendezvous protocol), and
 *      checks the status and every element once MPI_Wait returns; MPI_Test polling
 *      completes the request as well.
 *   2. The same ring with MPI_Isendrecv_replace, of ints and of a strided vector
 *      datatype (every other int: the gaps must stay untouched).
 *   3. MPI_PROC_NULL on either side: the other half still happens, and a receive
 *      from MPI_PROC_NULL gives source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
 *   4. MPI_Isendrecv_c and MPI_Isendrecv_replace_c on the ring.
 *
 * Prints "isendrecv: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "isendrecv"
#include "check.h"

static int value(int rank, int round, int i) { return rank * 100003 + round * 1009 + i; }

static void wait_or_poll(MPI_Request *request, MPI_Status *status, int poll) {
  if (!poll) {
    CHECK_MPI(MPI_Wait(request, status));
    return;
  }
  int flag = 0;
  double start = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Test(request, &flag, status));
    if (!flag && MPI_Wtime() - start > 30) fail("MPI_Test polled for 30 s");
  }
  if (*request != MPI_REQUEST_NULL) fail("MPI_Test left the request set");
}

static void ring(int rank, int size, int n, int round, int large_count) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *out = xmalloc(sizeof(int) * (size_t)n), *in = xmalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) out[i] = value(rank, round, i), in[i] = -1;
  MPI_Request request;
  MPI_Status status;
  if (large_count) {
    CHECK_MPI(MPI_Isendrecv_c(out, n, MPI_INT, next, round, in, n, MPI_INT, prev, round,
                              MPI_COMM_WORLD, &request));
  } else {
    CHECK_MPI(MPI_Isendrecv(out, n, MPI_INT, next, round, in, n, MPI_INT, prev, round,
                            MPI_COMM_WORLD, &request));
  }
  wait_or_poll(&request, &status, round % 2);
  expect_status("isendrecv", &status, prev, round, MPI_INT, n);
  for (int i = 0; i < n; ++i) EXPECT_INT("isendrecv element", in[i], value(prev, round, i));
  free(out);
  free(in);
}

static void ring_replace(int rank, int size, int n, int round, int strided, int large_count) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int stride = strided ? 2 : 1;
  int *buf = xmalloc(sizeof(int) * (size_t)n * (size_t)stride);
  for (int i = 0; i < n * stride; ++i) buf[i] = i % stride ? -5 : value(rank, round, i / stride);
  MPI_Datatype type = MPI_INT;
  if (strided) {
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &type));
    CHECK_MPI(MPI_Type_commit(&type));
  }
  int count = strided ? 1 : n;
  MPI_Request request;
  MPI_Status status;
  if (large_count) {
    CHECK_MPI(MPI_Isendrecv_replace_c(buf, count, type, next, round, prev, round, MPI_COMM_WORLD,
                                      &request));
  } else {
    CHECK_MPI(MPI_Isendrecv_replace(buf, count, type, next, round, prev, round, MPI_COMM_WORLD,
                                    &request));
  }
  /* The datatype may go before the request completes. */
  if (strided) CHECK_MPI(MPI_Type_free(&type));
  wait_or_poll(&request, &status, round % 2);
  EXPECT_INT("isendrecv_replace status.MPI_SOURCE", status.MPI_SOURCE, prev);
  EXPECT_INT("isendrecv_replace status.MPI_TAG", status.MPI_TAG, round);
  int bytes;
  CHECK_MPI(MPI_Get_count(&status, MPI_BYTE, &bytes));
  EXPECT_INT("isendrecv_replace bytes", bytes, n * (int)sizeof(int));
  for (int i = 0; i < n * stride; ++i) {
    int expected = i % stride ? -5 : value(prev, round, i / stride);
    if (buf[i] != expected)
      fail("isendrecv_replace element %d: %d, expected %d", i, buf[i], expected);
  }
  free(buf);
}

static void proc_null(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out = value(rank, 99, 0), in = -1;
  MPI_Request request;
  MPI_Status status;
  /* Only the send happens: to rank+1, which receives it with MPI_Recv. */
  CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, next, 99, &in, 1, MPI_INT, MPI_PROC_NULL, 99,
                          MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&request, &status));
  expect_status("isendrecv from MPI_PROC_NULL", &status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  EXPECT_INT("received beside it", in, value(prev, 99, 0));
  /* Only the receive happens. */
  in = -1;
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, next, 98, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 98, &in, 1, MPI_INT, prev, 98,
                          MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Wait(&request, &status));
  expect_status("isendrecv to MPI_PROC_NULL", &status, prev, 98, MPI_INT, 1);
  EXPECT_INT("isendrecv to MPI_PROC_NULL: element", in, value(prev, 99, 0));
  /* Neither. */
  int buf = 17;
  CHECK_MPI(MPI_Isendrecv_replace(&buf, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                  MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Wait(&request, &status));
  expect_status("isendrecv_replace with MPI_PROC_NULL", &status, MPI_PROC_NULL, MPI_ANY_TAG,
                MPI_INT, 0);
  EXPECT_INT("untouched buffer", buf, 17);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  int round = 0;
  const int sizes[2] = {5, 200000};
  for (int k = 0; k < 2; ++k) {
    int n = sizes[k];
    for (int large_count = 0; large_count < 2; ++large_count) {
      ring(rank, size, n, round++, large_count);
      ring(rank, size, n, round++, large_count);
      ring_replace(rank, size, n, round++, 0, large_count);
      ring_replace(rank, size, n, round++, 1, large_count);
      ring_replace(rank, size, n, round++, 1, large_count);
    }
  }
  proc_null(rank, size);
  finalize_and_report(size);
  return 0;
}

/*
 * buffers.c - the buffers of buffered sends (MPI-4.1 and MPI 5.0 additions):
 * MPI_Buffer_attach_c / MPI_Buffer_detach_c, MPI_Buffer_flush, MPI_Buffer_iflush,
 * MPI_BUFFER_AUTOMATIC, and a communicator's own buffer (MPI_Comm_attach_buffer,
 * MPI_Comm_detach_buffer, MPI_Comm_flush_buffer, MPI_Comm_iflush_buffer and their _c
 * forms), with MPI_Bsend, MPI_Bsend_c and MPI_Ibsend.
 *
 * Checks (every rank sends to rank+1, which checks every element received):
 *   1. A process buffer attached with MPI_Buffer_attach_c: two large buffered sends
 *      fill it, a third fails with MPI_ERR_BUFFER (MPI_ERRORS_RETURN) since their
 *      copies cannot leave before the receives are posted; once they are, after
 *      MPI_Buffer_flush (or MPI_Buffer_iflush and MPI_Wait) the room is free again;
 * MPI_Buffer_detach_c returns the address and size attached.
 *   2. MPI_BUFFER_AUTOMATIC: buffered sends of any size need no attached memory;
 *      detaching returns MPI_BUFFER_AUTOMATIC.
 *   3. A communicator's buffer: buffered sends on a duplicate of MPI_COMM_WORLD use
 *      it when no process buffer is attached, and MPI_Comm_flush_buffer /
 *      MPI_Comm_iflush_buffer wait for them; detaching gives back the buffer.
 *
 * Prints "buffers: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "buffers"
#include "check.h"

#define N 1000
#define BIG 100000

static int value(int rank, int round, int i) { return rank * 1000003 + round * 10007 + i; }

static void receive_round(int rank, int size, int round, int count, MPI_Comm comm) {
  int prev = (rank + size - 1) % size;
  int *in = xmalloc(sizeof(int) * (size_t)count);
  MPI_Status status;
  CHECK_MPI(MPI_Recv(in, count, MPI_INT, prev, round, comm, &status));
  expect_status("buffered message", &status, prev, round, MPI_INT, count);
  for (int i = 0; i < count; ++i) {
    if (in[i] != value(prev, round, i))
      fail("round %d: element %d is %d, expected %d", round, i, in[i], value(prev, round, i));
  }
  free(in);
}

static void process_buffer(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  /* Large messages: their copies cannot leave before the receives are posted. */
  MPI_Count room = 2 * (BIG * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *space = xmalloc((size_t)room);
  int *out = xmalloc(sizeof(int) * BIG);
  int *in[3];
  for (int k = 0; k < 3; ++k) in[k] = xmalloc(sizeof(int) * BIG);
  CHECK_MPI(MPI_Buffer_attach_c(space, room));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < BIG; ++i) out[i] = value(rank, round, i);
    /* No receive of this round is posted before every rank's third send. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* Two messages fill the buffer; a third does not fit until they have left. */
    CHECK_MPI(MPI_Bsend(out, BIG, MPI_INT, next, round, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bsend_c(out, BIG, MPI_INT, next, 100 + round, MPI_COMM_WORLD));
    int rc = MPI_Bsend(out, BIG, MPI_INT, next, 200 + round, MPI_COMM_WORLD);
    int error_class = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
    EXPECT_INT("a third buffered send into a full buffer", error_class, MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request received[3];
    for (int k = 0; k < 3; ++k)
      CHECK_MPI(
          MPI_Irecv(in[k], BIG, MPI_INT, prev, 100 * k + round, MPI_COMM_WORLD, &received[k]));
    /* Once flushed, the copies have left and the buffer has room again. */
    if (round % 2 == 0) {
      CHECK_MPI(MPI_Buffer_flush());
    } else {
      MPI_Request request;
      CHECK_MPI(MPI_Buffer_iflush(&request));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    }
    MPI_Request sent;
    CHECK_MPI(MPI_Ibsend(out, BIG, MPI_INT, next, 200 + round, MPI_COMM_WORLD, &sent));
    CHECK_MPI(MPI_Wait(&sent, MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; ++k) {
      MPI_Status status;
      CHECK_MPI(MPI_Wait(&received[k], &status));
      expect_status("buffered message", &status, prev, 100 * k + round, MPI_INT, BIG);
      for (int i = 0; i < BIG; ++i) {
        if (in[k][i] != value(prev, round, i))
          fail("round %d, message %d: element %d is %d, expected %d", round, k, i, in[k][i],
               value(prev, round, i));
      }
    }
    CHECK_MPI(MPI_Buffer_flush());
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  void *address = NULL;
  MPI_Count size_back = 0;
  CHECK_MPI(MPI_Buffer_detach_c(&address, &size_back));
  if (address != space) fail("MPI_Buffer_detach_c returned another address");
  EXPECT_INT("MPI_Buffer_detach_c size", size_back, room);
  for (int k = 0; k < 3; ++k) free(in[k]);
  free(out);
  free(space);
}

static void automatic_buffer(int rank, int size) {
  int next = (rank + 1) % size;
  int count = 300000; /* large: beyond any eager limit */
  int *out = xmalloc(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; ++i) out[i] = value(rank, 7, i);
  CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  CHECK_MPI(MPI_Bsend(out, count, MPI_INT, next, 7, MPI_COMM_WORLD));
  /* The message is a copy: the buffer may change at once. */
  memset(out, 0, sizeof(int) * (size_t)count);
  receive_round(rank, size, 7, count, MPI_COMM_WORLD);
  void *address = NULL;
  int size_back = -1;
  CHECK_MPI(MPI_Buffer_detach(&address, &size_back));
  if (address != MPI_BUFFER_AUTOMATIC) fail("detaching did not return MPI_BUFFER_AUTOMATIC");
  free(out);
}

static void comm_buffer(int rank, int size) {
  int next = (rank + 1) % size;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  int bytes = 3 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *space = xmalloc((size_t)bytes);
  CHECK_MPI(MPI_Comm_attach_buffer(comm, space, bytes));
  int out[N];
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i) out[i] = value(rank, round, i);
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Bsend(out, N, MPI_INT, next, 10 * round + k, comm));
    if (round == 0) {
      CHECK_MPI(MPI_Comm_flush_buffer(comm));
    } else {
      MPI_Request request;
      CHECK_MPI(MPI_Comm_iflush_buffer(comm, &request));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    }
    for (int k = 0; k < 3; ++k) {
      int prev = (rank + size - 1) % size, in[N];
      CHECK_MPI(MPI_Recv(in, N, MPI_INT, prev, 10 * round + k, comm, MPI_STATUS_IGNORE));
      for (int i = 0; i < N; ++i)
        EXPECT_INT("communicator-buffered element", in[i], value(prev, round, i));
    }
  }
  void *address = NULL;
  int size_back = 0;
  CHECK_MPI(MPI_Comm_detach_buffer(comm, &address, &size_back));
  if (address != space) fail("MPI_Comm_detach_buffer returned another address");
  EXPECT_INT("MPI_Comm_detach_buffer size", size_back, bytes);
  CHECK_MPI(MPI_Comm_attach_buffer_c(comm, MPI_BUFFER_AUTOMATIC, 0));
  CHECK_MPI(MPI_Bsend(out, N, MPI_INT, next, 99, comm));
  int prev = (rank + size - 1) % size, in[N];
  CHECK_MPI(MPI_Recv(in, N, MPI_INT, prev, 99, comm, MPI_STATUS_IGNORE));
  EXPECT_INT("automatic communicator buffer", in[N - 1], value(prev, 2, N - 1));
  MPI_Count size_c = -1;
  CHECK_MPI(MPI_Comm_detach_buffer_c(comm, &address, &size_c));
  if (address != MPI_BUFFER_AUTOMATIC) fail("detaching did not return MPI_BUFFER_AUTOMATIC");
  CHECK_MPI(MPI_Comm_free(&comm));
  free(space);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  process_buffer(rank, size);
  automatic_buffer(rank, size);
  comm_buffer(rank, size);
  finalize_and_report(size);
  return 0;
}

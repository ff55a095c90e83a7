/*
 * persistent.c - persistent requests.
 *
 * A ring exchange set up once with MPI_Send_init and MPI_Recv_init (and, in a second
 * ring, MPI_Ssend_init) and run five times with MPI_Startall and MPI_Waitall, the buffer
 * refilled between rounds; MPI_Start and MPI_Wait one request at a time; waiting on an
 * inactive persistent request returns at once with an empty status and leaves it
 * allocated; requests to and from MPI_PROC_NULL complete at once with source
 * MPI_PROC_NULL; MPI_Request_free sets the handles to MPI_REQUEST_NULL.
 */
#include <mpi.h>
#include <stdio.h>

#define PROGRAM "persistent"
#include "check.h"

static int rank, size;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  g_rank = rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  int out[4], in[4];
  MPI_Request req[2];
  MPI_Recv_init(in, 4, MPI_INT, prev, 3, MPI_COMM_WORLD, &req[0]);
  MPI_Send_init(out, 4, MPI_INT, next, 3, MPI_COMM_WORLD, &req[1]);
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 4; ++i) out[i] = rank * 100 + round * 10 + i;
    MPI_Startall(2, req);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    EXPECT_INT("a persistent request was freed by MPI_Waitall",
               req[0] == MPI_REQUEST_NULL || req[1] == MPI_REQUEST_NULL, 0);
    for (int i = 0; i < 4; ++i) EXPECT_INT("ring value", in[i], prev * 100 + round * 10 + i);
  }

  /* One at a time, with MPI_Start and MPI_Wait, and a synchronous send. */
  MPI_Request sreq, rreq;
  MPI_Ssend_init(out, 1, MPI_INT, next, 4, MPI_COMM_WORLD, &sreq);
  MPI_Recv_init(in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
  for (int round = 0; round < 3; ++round) {
    MPI_Status st;
    out[0] = rank + round;
    MPI_Start(&rreq);
    MPI_Start(&sreq);
    MPI_Wait(&rreq, &st);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    EXPECT_INT("ssend ring value", in[0], prev + round);
    EXPECT_INT("status.MPI_SOURCE", st.MPI_SOURCE, prev);
    EXPECT_INT("status.MPI_TAG", st.MPI_TAG, 4);
  }

  /* An inactive persistent request: MPI_Wait returns at once, with an empty status. */
  {
    MPI_Status st;
    int count = -1, flag = 0;
    MPI_Wait(&rreq, &st);
    EXPECT_INT("MPI_Wait freed an inactive request", rreq == MPI_REQUEST_NULL, 0);
    EXPECT_INT("inactive status.MPI_SOURCE", st.MPI_SOURCE, MPI_ANY_SOURCE);
    EXPECT_INT("inactive status.MPI_TAG", st.MPI_TAG, MPI_ANY_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT_INT("inactive count", count, 0);
    MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE);
    EXPECT_INT("MPI_Test on an inactive request", flag, 1);
  }

  /* To and from MPI_PROC_NULL. */
  {
    MPI_Request nreq[2];
    MPI_Status st[2];
    int count = -1;
    MPI_Send_init(out, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &nreq[0]);
    MPI_Recv_init(in, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &nreq[1]);
    MPI_Startall(2, nreq);
    MPI_Waitall(2, nreq, st);
    EXPECT_INT("MPI_PROC_NULL receive status.MPI_SOURCE", st[1].MPI_SOURCE, MPI_PROC_NULL);
    MPI_Get_count(&st[1], MPI_INT, &count);
    EXPECT_INT("MPI_PROC_NULL receive count", count, 0);
    MPI_Request_free(&nreq[0]);
    MPI_Request_free(&nreq[1]);
    EXPECT_INT("freed handle", nreq[0] == MPI_REQUEST_NULL, 1);
  }

  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
  MPI_Request_free(&sreq);
  MPI_Request_free(&rreq);
  EXPECT_INT("freed handle", rreq == MPI_REQUEST_NULL, 1);
  MPI_Finalize();
  if (rank == 0) printf(PROGRAM ": OK (%d ranks)\n", size);
  return 0;
}

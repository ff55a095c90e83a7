/*
 * large_count_p2p.c - the large-count point-to-point functions (MPI-4): MPI_Send_c,
 * MPI_Recv_c, MPI_Isend_c, MPI_Irecv_c, MPI_Ssend_c, MPI_Issend_c, MPI_Rsend_c,
 * MPI_Irsend_c, MPI_Bsend_c, MPI_Ibsend_c, MPI_Sendrecv_c, MPI_Sendrecv_replace_c,
 * and the persistent MPI_Send_init_c, MPI_Ssend_init_c, MPI_Rsend_init_c,
 * MPI_Bsend_init_c and MPI_Recv_init_c.
 *
 * Checks:
 *   1. Every function on a ring (rank+1 receives from rank), small and large
 *      messages: status source and tag, MPI_Get_count and every element.
 *   2. A message of more than 2^31 bytes (2^31 + 24 chars, an MPI_Count beyond
 *      INT_MAX) from rank 0 to rank 1 with MPI_Send_c / MPI_Recv_c, then back with
 *      MPI_Isend_c / MPI_Irecv_c; sampled elements and the status
 *      size (MPI_Get_count in bytes and in doubles) checked. Only with 2 ranks (it needs about 4.3
 * GB per rank pair), and only when WEFT_TEST_HUGE_MESSAGES is set to 1 or the run has exactly 2
 * ranks and WEFT_TEST_NO_HUGE_MESSAGES is not set.
 *
 * Prints "large_count_p2p: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "large_count_p2p"
#include "check.h"

static int value(int rank, int tag, MPI_Count i) { return rank * 1000003 + tag * 10007 + (int)i; }

static void fill(int *out, MPI_Count n, int rank, int tag) {
  for (MPI_Count i = 0; i < n; ++i) out[i] = value(rank, tag, i);
}

static void check(const char *what, const int *in, MPI_Count n, int source, int tag,
                  const MPI_Status *status) {
  if (status != NULL) expect_status(what, status, source, tag, MPI_INT, (int)n);
  for (MPI_Count i = 0; i < n; ++i) {
    if (in[i] != value(source, tag, i))
      fail("%s: element %lld is %d, expected %d", what, (long long)i, in[i], value(source, tag, i));
  }
}

static void ring(int rank, int size, MPI_Count n) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *out = xmalloc(sizeof(int) * (size_t)n), *in = xmalloc(sizeof(int) * (size_t)n);
  MPI_Status status;
  MPI_Request requests[2];
  /* Blocking sends: receive first (non-blocking), then send. */
  for (int tag = 1; tag <= 4; ++tag) {
    fill(out, n, rank, tag);
    CHECK_MPI(MPI_Irecv_c(in, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &requests[0]));
    switch (tag) {
      case 1:
        CHECK_MPI(MPI_Send_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD));
        break;
      case 2:
        CHECK_MPI(MPI_Ssend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD));
        break;
      case 3: {
        /* Ready mode: every receive is posted before anyone sends. */
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Rsend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD));
        break;
      }
      default: {
        MPI_Count room = n * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD;
        void *space = xmalloc((size_t)room), *back;
        MPI_Count room_back;
        CHECK_MPI(MPI_Buffer_attach_c(space, room));
        CHECK_MPI(MPI_Bsend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&requests[0], &status));
        check("MPI_Bsend_c", in, n, prev, tag, &status);
        CHECK_MPI(MPI_Buffer_detach_c(&back, &room_back));
        free(space);
        continue;
      }
    }
    CHECK_MPI(MPI_Wait(&requests[0], &status));
    check("blocking _c send", in, n, prev, tag, &status);
  }
  /* Non-blocking sends, received with MPI_Recv_c. */
  for (int tag = 5; tag <= 8; ++tag) {
    fill(out, n, rank, tag);
    if (tag == 7) {
      /* Ready mode: the receive is posted before the barrier, the send after. */
      CHECK_MPI(MPI_Irecv_c(in, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &requests[0]));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Count room = n * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD;
    void *space = NULL, *back;
    if (tag == 8) {
      space = xmalloc((size_t)room);
      CHECK_MPI(MPI_Buffer_attach_c(space, room));
    }
    switch (tag) {
      case 5:
        CHECK_MPI(MPI_Isend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &requests[1]));
        break;
      case 6:
        CHECK_MPI(MPI_Issend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &requests[1]));
        break;
      case 7:
        CHECK_MPI(MPI_Irsend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &requests[1]));
        break;
      default:
        CHECK_MPI(MPI_Ibsend_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &requests[1]));
    }
    if (tag == 7) {
      CHECK_MPI(MPI_Wait(&requests[0], &status));
    } else {
      CHECK_MPI(MPI_Recv_c(in, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &status));
    }
    check("non-blocking _c send", in, n, prev, tag, &status);
    CHECK_MPI(MPI_Wait(&requests[1], MPI_STATUS_IGNORE));
    if (tag == 8) {
      MPI_Count room_back;
      CHECK_MPI(MPI_Buffer_detach_c(&back, &room_back));
      free(space);
    }
  }
  /* Sendrecv and the replacing form. */
  fill(out, n, rank, 9);
  CHECK_MPI(
      MPI_Sendrecv_c(out, n, MPI_INT, next, 9, in, n, MPI_INT, prev, 9, MPI_COMM_WORLD, &status));
  check("MPI_Sendrecv_c", in, n, prev, 9, &status);
  fill(in, n, rank, 10);
  CHECK_MPI(MPI_Sendrecv_replace_c(in, n, MPI_INT, next, 10, prev, 10, MPI_COMM_WORLD, &status));
  check("MPI_Sendrecv_replace_c", in, n, prev, 10, &status);
  /* Persistent forms, two rounds each. */
  for (int tag = 11; tag <= 14; ++tag) {
    MPI_Request send, recv;
    /* Room for both rounds' copies, whenever the first one's leaves. */
    MPI_Count room = 2 * (n * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *space = NULL, *back;
    switch (tag) {
      case 11:
        CHECK_MPI(MPI_Send_init_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
        break;
      case 12:
        CHECK_MPI(MPI_Ssend_init_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
        break;
      case 13:
        CHECK_MPI(MPI_Rsend_init_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
        break;
      default:
        space = xmalloc((size_t)room);
        CHECK_MPI(MPI_Buffer_attach_c(space, room));
        CHECK_MPI(MPI_Bsend_init_c(out, n, MPI_INT, next, tag, MPI_COMM_WORLD, &send));
    }
    CHECK_MPI(MPI_Recv_init_c(in, n, MPI_INT, prev, tag, MPI_COMM_WORLD, &recv));
    for (int round = 0; round < 2; ++round) {
      fill(out, n, rank, tag);
      CHECK_MPI(MPI_Start(&recv));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Start(&send));
      CHECK_MPI(MPI_Wait(&recv, &status));
      check("persistent _c", in, n, prev, tag, &status);
      CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&send));
    CHECK_MPI(MPI_Request_free(&recv));
    if (space != NULL) {
      MPI_Count room_back;
      CHECK_MPI(MPI_Buffer_detach_c(&back, &room_back));
      free(space);
    }
  }
  free(out);
  free(in);
}

static unsigned char huge_value(uint64_t i) { return (unsigned char)(mix64(i) & 0xff); }

static void huge_message(int rank) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 24; /* beyond INT_MAX elements */
  unsigned char *buf = malloc((size_t)n);
  if (buf == NULL) fail("cannot allocate %lld bytes", (long long)n);
  MPI_Status status;
  const uint64_t samples[] = {0, 1, 4095, (uint64_t)1 << 31, (uint64_t)n - 1};
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; i += 4096) buf[i] = huge_value((uint64_t)i);
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; ++k)
      buf[samples[k]] = huge_value(samples[k]);
    CHECK_MPI(MPI_Send_c(buf, n, MPI_UNSIGNED_CHAR, 1, 1, MPI_COMM_WORLD));
    memset(buf, 0, (size_t)n);
    MPI_Request request;
    CHECK_MPI(MPI_Irecv_c(buf, n, MPI_UNSIGNED_CHAR, 1, 2, MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
  } else {
    memset(buf, 0, (size_t)n);
    CHECK_MPI(MPI_Recv_c(buf, n, MPI_UNSIGNED_CHAR, 0, 1, MPI_COMM_WORLD, &status));
    MPI_Request request;
    CHECK_MPI(MPI_Isend_c(buf, n, MPI_UNSIGNED_CHAR, 0, 2, MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  }
  int count;
  CHECK_MPI(MPI_Get_count(&status, MPI_UNSIGNED_CHAR, &count));
  EXPECT_INT("MPI_Get_count of a message beyond INT_MAX", count, MPI_UNDEFINED);
  /* n bytes are exactly (n / 8) doubles, a count an int holds. */
  CHECK_MPI(MPI_Get_count(&status, MPI_DOUBLE, &count));
  EXPECT_INT("the huge message's size in doubles", count, n / 8);
  for (MPI_Count i = 0; i < n; i += 4096)
    if (buf[i] != huge_value((uint64_t)i)) fail("huge message: byte %lld is wrong", (long long)i);
  for (size_t k = 0; k < sizeof samples / sizeof samples[0]; ++k)
    if (buf[samples[k]] != huge_value(samples[k]))
      fail("huge message: byte %llu is wrong", (unsigned long long)samples[k]);
  free(buf);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  ring(rank, size, 7);
  ring(rank, size, 100000);
  const char *huge = getenv("WEFT_TEST_HUGE_MESSAGES");
  int run_huge = huge != NULL ? strcmp(huge, "1") == 0
                              : size == 2 && getenv("WEFT_TEST_NO_HUGE_MESSAGES") == NULL;
  if (run_huge && size == 2) huge_message(rank);
  finalize_and_report(size);
  return 0;
}

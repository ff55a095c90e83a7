/*
 * alltoallw.c - MPI_Alltoallw and MPI_Ialltoallw against a serial reference.
 *
 * Rank s sends rank d a block of cnt(s, d) ints (zero for some pairs), each
 * value a function of (s, d, element, call), so every rank knows what it must
 * receive. Displacements are in bytes and the blocks are laid out in reverse
 * rank order with gaps holding a marker that must survive.
 *
 * Checks, on MPI_COMM_WORLD:
 *   - MPI_INT on both sides.
 *   - A datatype per peer: to even peers the block goes out as a strided
 *     vector (every other int) and to odd peers as plain ints; it arrives as
 *     one element of a contiguous type of cnt ints from even senders and as
 *     MPI_INT from odd ones (the type signatures match, the layouts do not).
 *   - MPI_IN_PLACE (the receive layout serves both sides; send arguments are
 *     ignored and passed as NULL).
 *   - MPI_Ialltoallw, the send buffer untouched until the wait completes.
 *
 * Prints "alltoallw: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "alltoallw"
#include "check.h"

#define MARKER (-77)

static int rank, size;

/* The ints rank s sends rank d: 0 when s + d is a multiple of 3 (some pairs send nothing). */
static int cnt(int s, int d) { return (s + d) % 3 == 0 ? 0 : 1 + (s * 7 + d * 3) % 5; }

static int val(int s, int d, int i, int call) {
  return (int)(uint32_t)mix64(((uint64_t)call << 48) ^ ((uint64_t)s << 32) ^ ((uint64_t)d << 16) ^
                              (uint64_t)i);
}

/* Offsets (in ints) of the blocks for each peer, in reverse rank order with a gap of 1 + peer%2
 * ints before each; returns the total length. `counts` gives each block's ints. */
static int layout(const int *counts, int *offsets) {
  int at = 0;
  for (int p = size - 1; p >= 0; --p) {
    at += 1 + p % 2;
    offsets[p] = at;
    at += counts[p];
  }
  return at + 1;
}

static void fill_markers(int *buf, int n) {
  for (int i = 0; i < n; ++i) buf[i] = MARKER;
}

/* Checks a receive buffer laid out by layout() for the blocks from every peer. */
static void check_received(const char *what, const int *buf, int len, const int *counts,
                           const int *offsets, int call) {
  char *expected_marker = calloc((size_t)len, 1);
  for (int i = 0; i < len; ++i) expected_marker[i] = 1;
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < counts[p]; ++i) {
      expected_marker[offsets[p] + i] = 0;
      if (buf[offsets[p] + i] != val(p, rank, i, call)) {
        fail("%s: element %d from rank %d: got %d, expected %d", what, i, p, buf[offsets[p] + i],
             val(p, rank, i, call));
      }
    }
  }
  for (int i = 0; i < len; ++i) {
    if (expected_marker[i] && buf[i] != MARKER) fail("%s: gap at %d overwritten", what, i);
  }
  free(expected_marker);
}

static void test_ints(int call, int nonblocking) {
  int *scounts = xmalloc(sizeof(int) * size), *rcounts = xmalloc(sizeof(int) * size);
  int *soff = xmalloc(sizeof(int) * size), *roff = xmalloc(sizeof(int) * size);
  int *sdispls = xmalloc(sizeof(int) * size), *rdispls = xmalloc(sizeof(int) * size);
  MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * size);
  for (int p = 0; p < size; ++p) {
    scounts[p] = cnt(rank, p);
    rcounts[p] = cnt(p, rank);
    types[p] = MPI_INT;
  }
  int slen = layout(scounts, soff), rlen = layout(rcounts, roff);
  for (int p = 0; p < size; ++p) {
    sdispls[p] = soff[p] * (int)sizeof(int);
    rdispls[p] = roff[p] * (int)sizeof(int);
  }
  int *sendbuf = xmalloc(sizeof(int) * slen), *recvbuf = xmalloc(sizeof(int) * rlen);
  fill_markers(sendbuf, slen);
  fill_markers(recvbuf, rlen);
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < scounts[p]; ++i) sendbuf[soff[p] + i] = val(rank, p, i, call);
  }
  if (nonblocking) {
    MPI_Request request;
    CHECK_MPI(MPI_Ialltoallw(sendbuf, scounts, sdispls, types, recvbuf, rcounts, rdispls, types,
                             MPI_COMM_WORLD, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Alltoallw(sendbuf, scounts, sdispls, types, recvbuf, rcounts, rdispls, types,
                            MPI_COMM_WORLD));
  }
  check_received(nonblocking ? "MPI_Ialltoallw" : "MPI_Alltoallw", recvbuf, rlen, rcounts, roff,
                 call);
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < scounts[p]; ++i) {
      if (sendbuf[soff[p] + i] != val(rank, p, i, call)) fail("the send buffer changed");
    }
  }
  free(scounts), free(rcounts), free(soff), free(roff), free(sdispls), free(rdispls);
  free(types), free(sendbuf), free(recvbuf);
}

/* Per-peer datatypes: see the header. */
static void test_mixed_types(int call) {
  int *scounts = xmalloc(sizeof(int) * size), *rcounts = xmalloc(sizeof(int) * size);
  int *sdispls = xmalloc(sizeof(int) * size), *rdispls = xmalloc(sizeof(int) * size);
  int *roff = xmalloc(sizeof(int) * size), *rints = xmalloc(sizeof(int) * size);
  MPI_Datatype *stypes = xmalloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype *rtypes = xmalloc(sizeof(MPI_Datatype) * size);
  /* Send side: block for peer p starts at int 2 * 8 * p; even peers read every other int. */
  int slen = 16 * size + 1;
  int *sendbuf = xmalloc(sizeof(int) * slen);
  fill_markers(sendbuf, slen);
  for (int p = 0; p < size; ++p) {
    int n = cnt(rank, p);
    sdispls[p] = 16 * p * (int)sizeof(int);
    if (p % 2 == 0) {
      CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &stypes[p]));
      CHECK_MPI(MPI_Type_commit(&stypes[p]));
      scounts[p] = 1;
      for (int i = 0; i < n; ++i) sendbuf[16 * p + 2 * i] = val(rank, p, i, call);
    } else {
      stypes[p] = MPI_INT;
      scounts[p] = n;
      for (int i = 0; i < n; ++i) sendbuf[16 * p + i] = val(rank, p, i, call);
    }
  }
  /* Receive side: from even senders one contiguous(n) element, from odd ones n MPI_INTs. */
  for (int p = 0; p < size; ++p) rints[p] = cnt(p, rank);
  int rlen = layout(rints, roff);
  int *recvbuf = xmalloc(sizeof(int) * rlen);
  fill_markers(recvbuf, rlen);
  for (int p = 0; p < size; ++p) {
    rdispls[p] = roff[p] * (int)sizeof(int);
    if (p % 2 == 0) {
      CHECK_MPI(MPI_Type_contiguous(rints[p], MPI_INT, &rtypes[p]));
      CHECK_MPI(MPI_Type_commit(&rtypes[p]));
      rcounts[p] = 1;
    } else {
      rtypes[p] = MPI_INT;
      rcounts[p] = rints[p];
    }
  }
  CHECK_MPI(MPI_Alltoallw(sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls, rtypes,
                          MPI_COMM_WORLD));
  check_received("MPI_Alltoallw with a datatype per peer", recvbuf, rlen, rints, roff, call);
  for (int p = 0; p < size; ++p) {
    if (stypes[p] != MPI_INT) CHECK_MPI(MPI_Type_free(&stypes[p]));
    if (rtypes[p] != MPI_INT) CHECK_MPI(MPI_Type_free(&rtypes[p]));
  }
  free(scounts), free(rcounts), free(sdispls), free(rdispls), free(roff), free(rints);
  free(stypes), free(rtypes), free(sendbuf), free(recvbuf);
}

/* MPI_IN_PLACE: the counts must be symmetric, so rank s and d exchange sym(s, d) ints. */
static int sym(int s, int d) { return cnt(s < d ? s : d, s < d ? d : s); }

static void test_in_place(int call) {
  int *counts = xmalloc(sizeof(int) * size), *off = xmalloc(sizeof(int) * size);
  int *displs = xmalloc(sizeof(int) * size);
  MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * size);
  for (int p = 0; p < size; ++p) {
    counts[p] = sym(rank, p);
    types[p] = MPI_INT;
  }
  int len = layout(counts, off);
  for (int p = 0; p < size; ++p) displs[p] = off[p] * (int)sizeof(int);
  int *buf = xmalloc(sizeof(int) * len);
  fill_markers(buf, len);
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < counts[p]; ++i) buf[off[p] + i] = val(rank, p, i, call);
  }
  CHECK_MPI(
      MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, displs, types, MPI_COMM_WORLD));
  check_received("MPI_Alltoallw in place", buf, len, counts, off, call);
  free(counts), free(off), free(displs), free(types), free(buf);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  test_ints(1, 0);
  test_ints(2, 1);
  test_mixed_types(3);
  test_in_place(4);
  finalize_and_report(size);
  return 0;
}

/*
 * intercomm_large_count.c - the large-count (_c), persistent (_init, _init_c)
 * and Alltoallw forms of the collectives on an intercommunicator, checked
 * against values every rank computes itself.
 *
 * The world is cut as in intercomm_collectives.c: a low half (ranks 0 ..
 * size/2-1) and a high half, joined by an intercommunicator. Each collective
 * runs in four forms: the blocking _c function, the non-blocking _c function
 * then MPI_Wait, and the persistent _init and _init_c functions, each started
 * STARTS times with the send data changed between starts. Alltoallw also runs
 * as MPI_Alltoallw and MPI_Ialltoallw. Rooted collectives run rooted in each
 * half (MPI_ROOT at the root, MPI_PROC_NULL at the rest of its half, the
 * root's rank in the other half). Rank r's value k at start t is
 * val(r, k, t) = 10000 * t + 100 * r + k, with r its world rank.
 *
 *   Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v): each receiver gets
 *     the values of the other half's ranks in their rank order (the v-forms:
 *     remote rank j gives j + 1 values, placed with gaps).
 *   Alltoallw: block j goes to remote rank j, received with a strided type from
 *     odd remote ranks (every other int), at byte displacements.
 *   Reduce, Allreduce (MPI_SUM): the sums over the other half.
 *   Reduce_scatter_block (equal halves only), Reduce_scatter: the other half's
 *     sums, local rank i getting block i.
 *   Barrier_init.
 *   Scan_c, Iexscan_c, Scan_init and Exscan_init_c: MPI_ERR_COMM, the standard
 *     defining them on intracommunicators only.
 * With one rank there is no intercommunicator: nothing is checked.
 *
 * Prints "intercomm_large_count: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PROGRAM "intercomm_large_count"
#include "check.h"

#define MAXV 64
#define STARTS 3
#define FORMS 4 /* blocking _c, non-blocking _c, _init, _init_c */

static int rank, size, low, color, lsize, rsize, lrank, lfirst, rfirst;
static MPI_Comm inter;

static const char *form_names[] = {"_c", "I_c", "_init", "_init_c", "", "I"};

static int val(int r, int k, int t) { return 10000 * t + 100 * r + k; }
static int remote_world(int j) { return rfirst + j; }

static void wait_req(MPI_Request *req) { CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE)); }

/* Starts a persistent request and waits for it; it stays allocated. */
static void start_req(MPI_Request *req) {
  CHECK_MPI(MPI_Start(req));
  CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
  if (*req == MPI_REQUEST_NULL) fail("a persistent request was freed by MPI_Wait");
}

static void finish(int form, MPI_Request *req) {
  if (form >= 2 && form <= 3) CHECK_MPI(MPI_Request_free(req));
}

/* Runs one of the four forms of a collective: the blocking _c call, the non-blocking
 * one (then waits), or the persistent _init or _init_c (made at the first start). */
#define RUN(form, t, req, blocking_c, nonblocking_c, init, init_c) \
  do {                                                             \
    switch (form) {                                                \
      case 0:                                                      \
        CHECK_MPI(blocking_c);                                     \
        break;                                                     \
      case 1:                                                      \
        CHECK_MPI(nonblocking_c);                                  \
        wait_req(req);                                             \
        break;                                                     \
      case 2:                                                      \
        if ((t) == 0) CHECK_MPI(init);                             \
        start_req(req);                                            \
        break;                                                     \
      default:                                                     \
        if ((t) == 0) CHECK_MPI(init_c);                           \
        start_req(req);                                            \
        break;                                                     \
    }                                                              \
  } while (0)

static void expect_array(const char *what, int form, int t, const int *got, const int *exp, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (got[i] != exp[i])
      fail("%s%s (start %d): element %d: got %d, expected %d", what, form_names[form], t, i, got[i],
           exp[i]);
}

/* Count and displacement arrays in both widths: the classic (_init) forms take the
 * ints, the _c forms the MPI_Count and MPI_Aint ones. */
struct counts {
  int ci[MAXV], di[MAXV];
  MPI_Count cc[MAXV];
  MPI_Aint dc[MAXV];
};

static void set_count(struct counts *a, int j, int count, int displ) {
  a->ci[j] = count;
  a->cc[j] = count;
  a->di[j] = displ;
  a->dc[j] = displ;
}

static int root_arg(int root_color, int root_local) {
  if (color != root_color) return root_local;
  return lrank == root_local ? MPI_ROOT : MPI_PROC_NULL;
}

static void rooted(int form, int root_color, int root_local) {
  int root = root_arg(root_color, root_local);
  int is_root = root == MPI_ROOT, receives_from_root = color != root_color;
  int root_world = root_color == 0 ? root_local : low + root_local;
  int buf[MAXV], exp[MAXV], send[MAXV], j, k, t;
  struct counts v;
  MPI_Request req = MPI_REQUEST_NULL;

  for (j = 0; j < rsize; ++j) set_count(&v, j, j + 1, 3 * j);

  /* Bcast */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 3; ++k) buf[k] = is_root ? val(rank, k, t) : -1;
    RUN(form, t, &req, MPI_Bcast_c(buf, 3, MPI_INT, root, inter),
        MPI_Ibcast_c(buf, 3, MPI_INT, root, inter, &req),
        MPI_Bcast_init(buf, 3, MPI_INT, root, inter, MPI_INFO_NULL, &req),
        MPI_Bcast_init_c(buf, 3, MPI_INT, root, inter, MPI_INFO_NULL, &req));
    if (receives_from_root) {
      for (k = 0; k < 3; ++k) exp[k] = val(root_world, k, t);
      expect_array("Bcast", form, t, buf, exp, 3);
    }
  }
  finish(form, &req);

  /* Gather: 2 values from each remote rank. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 2; ++k) send[k] = val(rank, k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req, MPI_Gather_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter),
        MPI_Igather_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, &req),
        MPI_Gather_init(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, MPI_INFO_NULL, &req),
        MPI_Gather_init_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, MPI_INFO_NULL, &req));
    if (is_root) {
      for (j = 0; j < rsize; ++j)
        for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), k, t);
      expect_array("Gather", form, t, buf, exp, 2 * rsize);
    }
  }
  finish(form, &req);

  /* Gatherv: remote rank j gives j + 1 values, at displacement 3 * j. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k <= lrank; ++k) send[k] = val(rank, k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req,
        MPI_Gatherv_c(send, lrank + 1, MPI_INT, buf, v.cc, v.dc, MPI_INT, root, inter),
        MPI_Igatherv_c(send, lrank + 1, MPI_INT, buf, v.cc, v.dc, MPI_INT, root, inter, &req),
        MPI_Gatherv_init(send, lrank + 1, MPI_INT, buf, v.ci, v.di, MPI_INT, root, inter,
                         MPI_INFO_NULL, &req),
        MPI_Gatherv_init_c(send, lrank + 1, MPI_INT, buf, v.cc, v.dc, MPI_INT, root, inter,
                           MPI_INFO_NULL, &req));
    if (is_root) {
      for (k = 0; k < 3 * rsize; ++k) exp[k] = -1;
      for (j = 0; j < rsize; ++j)
        for (k = 0; k <= j; ++k) exp[3 * j + k] = val(remote_world(j), k, t);
      expect_array("Gatherv", form, t, buf, exp, 3 * rsize);
    }
  }
  finish(form, &req);

  /* Scatter: remote rank j gets values 2j, 2j+1 of the root. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 2 * rsize; ++k) send[k] = val(rank, k, t);
    buf[0] = buf[1] = -1;
    RUN(form, t, &req, MPI_Scatter_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter),
        MPI_Iscatter_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, &req),
        MPI_Scatter_init(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, MPI_INFO_NULL, &req),
        MPI_Scatter_init_c(send, 2, MPI_INT, buf, 2, MPI_INT, root, inter, MPI_INFO_NULL, &req));
    if (receives_from_root) {
      for (k = 0; k < 2; ++k) exp[k] = val(root_world, 2 * lrank + k, t);
      expect_array("Scatter", form, t, buf, exp, 2);
    }
  }
  finish(form, &req);

  /* Scatterv: remote rank j gets j + 1 values from displacement 3 * j. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 3 * rsize; ++k) send[k] = val(rank, k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req,
        MPI_Scatterv_c(send, v.cc, v.dc, MPI_INT, buf, lrank + 1, MPI_INT, root, inter),
        MPI_Iscatterv_c(send, v.cc, v.dc, MPI_INT, buf, lrank + 1, MPI_INT, root, inter, &req),
        MPI_Scatterv_init(send, v.ci, v.di, MPI_INT, buf, lrank + 1, MPI_INT, root, inter,
                          MPI_INFO_NULL, &req),
        MPI_Scatterv_init_c(send, v.cc, v.dc, MPI_INT, buf, lrank + 1, MPI_INT, root, inter,
                            MPI_INFO_NULL, &req));
    if (receives_from_root) {
      for (k = 0; k <= lrank; ++k) exp[k] = val(root_world, 3 * lrank + k, t);
      expect_array("Scatterv", form, t, buf, exp, lrank + 1);
    }
  }
  finish(form, &req);

  /* Reduce: MPI_SUM of 3 values over the other half. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 3; ++k) {
      send[k] = val(rank, k, t);
      buf[k] = -1;
    }
    RUN(form, t, &req, MPI_Reduce_c(send, buf, 3, MPI_INT, MPI_SUM, root, inter),
        MPI_Ireduce_c(send, buf, 3, MPI_INT, MPI_SUM, root, inter, &req),
        MPI_Reduce_init(send, buf, 3, MPI_INT, MPI_SUM, root, inter, MPI_INFO_NULL, &req),
        MPI_Reduce_init_c(send, buf, 3, MPI_INT, MPI_SUM, root, inter, MPI_INFO_NULL, &req));
    if (is_root) {
      for (k = 0; k < 3; ++k) {
        exp[k] = 0;
        for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), k, t);
      }
      expect_array("Reduce", form, t, buf, exp, 3);
    }
  }
  finish(form, &req);
}

static void all(int form) {
  int buf[MAXV], exp[MAXV], send[MAXV], j, k, t;
  struct counts s, r;
  MPI_Request req = MPI_REQUEST_NULL;

  /* Barrier: persistent forms only (there is no MPI_Barrier_c). */
  if (form >= 2) {
    CHECK_MPI(MPI_Barrier_init(inter, MPI_INFO_NULL, &req));
    for (t = 0; t < STARTS; ++t) start_req(&req);
    finish(form, &req);
  }

  /* Allgather: 2 values from each remote rank. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 2; ++k) send[k] = val(rank, k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req, MPI_Allgather_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter),
        MPI_Iallgather_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter, &req),
        MPI_Allgather_init(send, 2, MPI_INT, buf, 2, MPI_INT, inter, MPI_INFO_NULL, &req),
        MPI_Allgather_init_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter, MPI_INFO_NULL, &req));
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), k, t);
    expect_array("Allgather", form, t, buf, exp, 2 * rsize);
  }
  finish(form, &req);

  /* Allgatherv: remote rank j gives j + 1 values, at 3 * j. */
  for (j = 0; j < rsize; ++j) set_count(&r, j, j + 1, 3 * j);
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k <= lrank; ++k) send[k] = val(rank, k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req, MPI_Allgatherv_c(send, lrank + 1, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter),
        MPI_Iallgatherv_c(send, lrank + 1, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter, &req),
        MPI_Allgatherv_init(send, lrank + 1, MPI_INT, buf, r.ci, r.di, MPI_INT, inter,
                            MPI_INFO_NULL, &req),
        MPI_Allgatherv_init_c(send, lrank + 1, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter,
                              MPI_INFO_NULL, &req));
    for (k = 0; k < 3 * rsize; ++k) exp[k] = -1;
    for (j = 0; j < rsize; ++j)
      for (k = 0; k <= j; ++k) exp[3 * j + k] = val(remote_world(j), k, t);
    expect_array("Allgatherv", form, t, buf, exp, 3 * rsize);
  }
  finish(form, &req);

  /* Alltoall: block j (2 values) goes to remote rank j. */
  for (t = 0; t < STARTS; ++t) {
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < 2; ++k) send[2 * j + k] = val(rank, 10 * j + k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req, MPI_Alltoall_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter),
        MPI_Ialltoall_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter, &req),
        MPI_Alltoall_init(send, 2, MPI_INT, buf, 2, MPI_INT, inter, MPI_INFO_NULL, &req),
        MPI_Alltoall_init_c(send, 2, MPI_INT, buf, 2, MPI_INT, inter, MPI_INFO_NULL, &req));
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < 2; ++k) exp[2 * j + k] = val(remote_world(j), 10 * lrank + k, t);
    expect_array("Alltoall", form, t, buf, exp, 2 * rsize);
  }
  finish(form, &req);

  /* Alltoallv: local rank i sends i + j + 1 values to remote rank j, from 4 * j;
   * receives from remote rank j j + i + 1 values, at 5 * j. */
  for (j = 0; j < rsize; ++j) {
    set_count(&s, j, lrank + j + 1, 4 * j);
    set_count(&r, j, j + lrank + 1, 5 * j);
  }
  for (t = 0; t < STARTS; ++t) {
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < s.ci[j]; ++k) send[4 * j + k] = val(rank, 10 * j + k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    RUN(form, t, &req, MPI_Alltoallv_c(send, s.cc, s.dc, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter),
        MPI_Ialltoallv_c(send, s.cc, s.dc, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter, &req),
        MPI_Alltoallv_init(send, s.ci, s.di, MPI_INT, buf, r.ci, r.di, MPI_INT, inter,
                           MPI_INFO_NULL, &req),
        MPI_Alltoallv_init_c(send, s.cc, s.dc, MPI_INT, buf, r.cc, r.dc, MPI_INT, inter,
                             MPI_INFO_NULL, &req));
    for (k = 0; k < 5 * rsize; ++k) exp[k] = -1;
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < r.ci[j]; ++k) exp[5 * j + k] = val(remote_world(j), 10 * lrank + k, t);
    expect_array("Alltoallv", form, t, buf, exp, 5 * rsize);
  }
  finish(form, &req);

  /* Allreduce: MPI_SUM over the other half. */
  for (t = 0; t < STARTS; ++t) {
    for (k = 0; k < 3; ++k) {
      send[k] = val(rank, k, t);
      buf[k] = -1;
    }
    RUN(form, t, &req, MPI_Allreduce_c(send, buf, 3, MPI_INT, MPI_SUM, inter),
        MPI_Iallreduce_c(send, buf, 3, MPI_INT, MPI_SUM, inter, &req),
        MPI_Allreduce_init(send, buf, 3, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req),
        MPI_Allreduce_init_c(send, buf, 3, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
    for (k = 0; k < 3; ++k) {
      exp[k] = 0;
      for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), k, t);
    }
    expect_array("Allreduce", form, t, buf, exp, 3);
  }
  finish(form, &req);

  /* Reduce_scatter_block: each vector is lsize * 2 values, which both halves agree on
   * only when they are equal. */
  if (lsize == rsize) {
    for (t = 0; t < STARTS; ++t) {
      for (k = 0; k < 2 * lsize; ++k) send[k] = val(rank, k, t);
      buf[0] = buf[1] = -1;
      RUN(form, t, &req, MPI_Reduce_scatter_block_c(send, buf, 2, MPI_INT, MPI_SUM, inter),
          MPI_Ireduce_scatter_block_c(send, buf, 2, MPI_INT, MPI_SUM, inter, &req),
          MPI_Reduce_scatter_block_init(send, buf, 2, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req),
          MPI_Reduce_scatter_block_init_c(send, buf, 2, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                          &req));
      for (k = 0; k < 2; ++k) {
        exp[k] = 0;
        for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), 2 * lrank + k, t);
      }
      expect_array("Reduce_scatter_block", form, t, buf, exp, 2);
    }
    finish(form, &req);
  }

  /* Reduce_scatter: the vectors are 2 * size values on both sides; local rank i gets
   * i + 1 of them, the last local rank the rest. */
  {
    int total = 2 * size, before = 0, mine;
    for (j = 0; j < lsize; ++j) {
      set_count(&r, j, j < lsize - 1 ? j + 1 : total - before, 0);
      before += r.ci[j];
    }
    before = 0;
    for (j = 0; j < lrank; ++j) before += r.ci[j];
    mine = r.ci[lrank];
    for (t = 0; t < STARTS; ++t) {
      for (k = 0; k < total; ++k) send[k] = val(rank, k, t);
      for (k = 0; k < MAXV; ++k) buf[k] = -1;
      RUN(form, t, &req, MPI_Reduce_scatter_c(send, buf, r.cc, MPI_INT, MPI_SUM, inter),
          MPI_Ireduce_scatter_c(send, buf, r.cc, MPI_INT, MPI_SUM, inter, &req),
          MPI_Reduce_scatter_init(send, buf, r.ci, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req),
          MPI_Reduce_scatter_init_c(send, buf, r.cc, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
      for (k = 0; k < mine; ++k) {
        exp[k] = 0;
        for (j = 0; j < rsize; ++j) exp[k] += val(remote_world(j), before + k, t);
      }
      expect_array("Reduce_scatter", form, t, buf, exp, mine);
    }
    finish(form, &req);
  }
}

/* Alltoallw in six forms (the four above, then MPI_Alltoallw and MPI_Ialltoallw):
 * local rank i sends m = i + j + 1 ints to remote rank j from byte 16 * j; from remote
 * rank j it receives as many, as MPI_INT at int 8 * j when j is even and as one
 * vector of m ints two apart at int 8 * j when j is odd. */
static void alltoallw(int form) {
  int buf[MAXV], exp[MAXV], send[MAXV], j, k, t;
  struct counts s, r;
  MPI_Datatype stypes[MAXV], rtypes[MAXV], strided[MAXV];
  MPI_Request req = MPI_REQUEST_NULL;

  for (j = 0; j < rsize; ++j) {
    int m = lrank + j + 1;
    set_count(&s, j, m, 4 * j * (int)sizeof(int));
    stypes[j] = MPI_INT;
    strided[j] = MPI_DATATYPE_NULL;
    if (j % 2 == 0) {
      set_count(&r, j, m, 8 * j * (int)sizeof(int));
      rtypes[j] = MPI_INT;
    } else {
      CHECK_MPI(MPI_Type_vector(m, 1, 2, MPI_INT, &strided[j]));
      CHECK_MPI(MPI_Type_commit(&strided[j]));
      set_count(&r, j, 1, 8 * j * (int)sizeof(int));
      rtypes[j] = strided[j];
    }
  }
  for (t = 0; t < STARTS; ++t) {
    for (j = 0; j < rsize; ++j)
      for (k = 0; k < s.ci[j]; ++k) send[4 * j + k] = val(rank, 10 * j + k, t);
    for (k = 0; k < MAXV; ++k) buf[k] = -1;
    if (form == 4) {
      CHECK_MPI(MPI_Alltoallw(send, s.ci, s.di, stypes, buf, r.ci, r.di, rtypes, inter));
    } else if (form == 5) {
      CHECK_MPI(MPI_Ialltoallw(send, s.ci, s.di, stypes, buf, r.ci, r.di, rtypes, inter, &req));
      wait_req(&req);
    } else {
      RUN(form, t, &req, MPI_Alltoallw_c(send, s.cc, s.dc, stypes, buf, r.cc, r.dc, rtypes, inter),
          MPI_Ialltoallw_c(send, s.cc, s.dc, stypes, buf, r.cc, r.dc, rtypes, inter, &req),
          MPI_Alltoallw_init(send, s.ci, s.di, stypes, buf, r.ci, r.di, rtypes, inter,
                             MPI_INFO_NULL, &req),
          MPI_Alltoallw_init_c(send, s.cc, s.dc, stypes, buf, r.cc, r.dc, rtypes, inter,
                               MPI_INFO_NULL, &req));
    }
    for (k = 0; k < 8 * rsize; ++k) exp[k] = -1;
    for (j = 0; j < rsize; ++j) {
      int m = lrank + j + 1, step = j % 2 == 0 ? 1 : 2;
      for (k = 0; k < m; ++k) exp[8 * j + step * k] = val(remote_world(j), 10 * lrank + k, t);
    }
    expect_array("Alltoallw", form, t, buf, exp, 8 * rsize);
  }
  finish(form, &req);
  for (j = 0; j < rsize; ++j)
    if (strided[j] != MPI_DATATYPE_NULL) CHECK_MPI(MPI_Type_free(&strided[j]));
}

/* The prefix reductions, which the standard defines on intracommunicators only. */
static void refusals(void) {
  int send[3] = {1, 2, 3}, buf[3];
  MPI_Request req = MPI_REQUEST_NULL;
  int rc, error_class;
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
#define EXPECT_ERR_COMM(call)                                                            \
  do {                                                                                   \
    rc = (call);                                                                         \
    MPI_Error_class(rc, &error_class);                                                   \
    if (error_class != MPI_ERR_COMM) fail("%s gave error class %d", #call, error_class); \
  } while (0)
  EXPECT_ERR_COMM(MPI_Scan_c(send, buf, 3, MPI_INT, MPI_SUM, inter));
  EXPECT_ERR_COMM(MPI_Exscan_c(send, buf, 3, MPI_INT, MPI_SUM, inter));
  EXPECT_ERR_COMM(MPI_Iexscan_c(send, buf, 3, MPI_INT, MPI_SUM, inter, &req));
  EXPECT_ERR_COMM(MPI_Scan(send, buf, 3, MPI_INT, MPI_SUM, inter));
  EXPECT_ERR_COMM(MPI_Iscan(send, buf, 3, MPI_INT, MPI_SUM, inter, &req));
  /* The persistent forms refuse at init, making no request. */
  EXPECT_ERR_COMM(MPI_Scan_init(send, buf, 3, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
  EXPECT_ERR_COMM(MPI_Exscan_init_c(send, buf, 3, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req));
  if (req != MPI_REQUEST_NULL) fail("a refused MPI_Scan_init or MPI_Exscan_init_c made a request");
#undef EXPECT_ERR_COMM
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  int form;
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

  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rfirst, 7, &inter));
  for (form = 0; form < FORMS; ++form) {
    rooted(form, 0, low - 1);
    rooted(form, 1, 0);
    all(form);
  }
  for (form = 0; form < 6; ++form) alltoallw(form);
  refusals();
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
  finalize_and_report(size);
  return 0;
}

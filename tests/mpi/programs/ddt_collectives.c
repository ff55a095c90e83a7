/*
 * ddt_collectives.c - non-contiguous derived datatypes in collectives, reductions and
 * persistent requests, each checked against what a serial computation gives.
 *
 * The types: a column of a row-major matrix (MPI_Type_vector), the same column resized
 * to one double's extent (so that consecutive columns are consecutive elements, the
 * classic way to gather into columns), "every other double" (a double resized to two),
 * and a C struct with padding. Reductions use user-defined operations, which the
 * standard lets work on any derived datatype (ddt_reduce_ext.c has weft's predefined
 * operations on derived datatypes, an extension).
 * Every receive buffer starts filled with a marker, and the gaps a type skips must
 * still hold it afterwards.
 */
#define PROGRAM "ddt_collectives"
#include <stddef.h>
#include <string.h>

#include "check.h"

enum { ROWS = 3, MAXN = 8, MARK = -7 };

/* A value every rank can compute for every rank and position. */
static double value(int rank, int i) { return rank * 1000 + i; }

static void fill(double *a, int n, double v) {
  for (int i = 0; i < n; ++i) a[i] = v;
}

/* Fails unless a[i] == expected for the elements of a strided view (stride 2) and MARK
 * in between. */
static void expect_strided(const char *what, const double *a, int n, double (*expected)(int)) {
  for (int i = 0; i < n; ++i) {
    char buf[120];
    snprintf(buf, sizeof buf, "%s: element %d", what, i);
    EXPECT_INT(buf, (long long)a[2 * i], (long long)expected(i));
    snprintf(buf, sizeof buf, "%s: gap after element %d", what, i);
    EXPECT_INT(buf, (long long)a[2 * i + 1], MARK);
  }
}

static int g_size;

struct scored {
  char tag;
  double score;
  int owner;
};

static MPI_Datatype g_scored_type;

/* Keeps the higher score (the lower owner on a tie); checks that MPI hands over the
 * derived datatype itself and the structs in their own layout. */
static void best(void *in, void *inout, int *len, MPI_Datatype *type) {
  if (*type != g_scored_type) fail("user op: not handed the derived datatype");
  struct scored *a = (struct scored *)in, *b = (struct scored *)inout;
  for (int i = 0; i < *len; ++i) {
    if (a[i].tag != 'S' || b[i].tag != 'S') fail("user op: struct %d not in its own layout", i);
    if (a[i].score > b[i].score || (a[i].score == b[i].score && a[i].owner < b[i].owner))
      b[i] = a[i];
  }
}

static MPI_Datatype g_strided, g_column;

/* inout += in over strided doubles or matrix columns: a user function gets the elements
 * in the datatype's own layout. */
static void add(void *in, void *inout, int *len, MPI_Datatype *type) {
  const double *a = (const double *)in;
  double *b = (double *)inout;
  if (*type == g_strided) {
    for (int i = 0; i < *len; ++i) b[2 * i] += a[2 * i];
  } else if (*type == g_column) {
    if (*len != 1) fail("user op: %d columns, expected 1", *len);
    for (int r = 0; r < ROWS; ++r) b[r * g_size] += a[r * g_size];
  } else {
    fail("user op: not handed the derived datatype");
  }
}

static double column_sum(int i) {
  double s = 0;
  for (int r = 0; r < g_size; ++r) s += value(r, i);
  return s;
}

static int g_scan_last;
static double scan_expected(int i) {
  double s = 0;
  for (int r = 0; r <= g_scan_last; ++r) s += value(r, i);
  return s;
}

static int g_me;
static double alltoall_expected(int i) { return value(i, g_me); }
static double reduce_scatter_expected(int i) { return column_sum(g_me * 2 + i); }

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  g_size = size;
  g_me = rank;
  if (size > MAXN) fail("at most %d ranks", MAXN);
  int root = size - 1;

  /* Column types of a ROWS x size matrix, and "every other double". */
  MPI_Datatype column, column_resized, strided;
  CHECK_MPI(MPI_Type_vector(ROWS, 1, size, MPI_DOUBLE, &column));
  CHECK_MPI(MPI_Type_create_resized(column, 0, sizeof(double), &column_resized));
  CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &strided));
  MPI_Datatype all_types[] = {column, column_resized, strided};
  for (int t = 0; t < 3; ++t) CHECK_MPI(MPI_Type_commit(&all_types[t]));
  column = all_types[0], column_resized = all_types[1], strided = all_types[2];
  g_column = column, g_strided = strided;
  MPI_Op sum;
  CHECK_MPI(MPI_Op_create(add, 1, &sum));

  double matrix[ROWS * MAXN], flat[ROWS * MAXN], wide[4 * MAXN * MAXN];

  /* Bcast of a column: the other columns keep their marker. */
  fill(matrix, ROWS * size, MARK);
  if (rank == root)
    for (int r = 0; r < ROWS; ++r) matrix[r * size + 1 % size] = value(root, r);
  CHECK_MPI(MPI_Bcast(&matrix[1 % size], 1, column, root, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < size; ++c)
      EXPECT_INT("bcast column", (long long)matrix[r * size + c],
                 c == 1 % size ? (long long)value(root, r) : MARK);

  /* Gather each rank's ROWS doubles into column `rank` of the root's matrix. */
  for (int r = 0; r < ROWS; ++r) flat[r] = value(rank, r);
  fill(matrix, ROWS * size, MARK);
  CHECK_MPI(MPI_Gather(flat, ROWS, MPI_DOUBLE, matrix, 1, column_resized, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int r = 0; r < ROWS; ++r)
      for (int c = 0; c < size; ++c)
        EXPECT_INT("gather into columns", (long long)matrix[r * size + c], (long long)value(c, r));

  /* Scatter the columns back out: rank c gets column c as ROWS contiguous doubles. */
  fill(flat, ROWS, MARK);
  CHECK_MPI(MPI_Scatter(matrix, 1, column_resized, flat, ROWS, MPI_DOUBLE, root, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r)
    EXPECT_INT("scatter of columns", (long long)flat[r], (long long)value(rank, r));

  /* Allgather into columns, sending a column (a vector) too; then in place. */
  double mine[ROWS * MAXN];
  fill(mine, ROWS * size, MARK);
  for (int r = 0; r < ROWS; ++r) mine[r * size] = value(rank, r);
  fill(matrix, ROWS * size, MARK);
  CHECK_MPI(MPI_Allgather(mine, 1, column, matrix, 1, column_resized, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < size; ++c)
      EXPECT_INT("allgather into columns", (long long)matrix[r * size + c], (long long)value(c, r));
  fill(matrix, ROWS * size, MARK);
  for (int r = 0; r < ROWS; ++r) matrix[r * size + rank] = value(rank, r);
  CHECK_MPI(
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, matrix, 1, column_resized, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < size; ++c)
      EXPECT_INT("allgather in place", (long long)matrix[r * size + c], (long long)value(c, r));

  /* Alltoall between strided buffers: element i goes to rank i. */
  double send[2 * MAXN], recv[2 * MAXN];
  fill(send, 2 * size, MARK);
  for (int i = 0; i < size; ++i) send[2 * i] = value(rank, i);
  fill(recv, 2 * size, MARK);
  CHECK_MPI(MPI_Alltoall(send, 1, strided, recv, 1, strided, MPI_COMM_WORLD));
  expect_strided("alltoall", recv, size, alltoall_expected);

  /* The v-forms: rank r's block holds r + 1 elements, at displacement r * (r + 1) / 2. */
  int counts[MAXN], displs[MAXN], total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1;
    displs[r] = total;
    total += counts[r];
  }
  for (int i = 0; i < rank + 1; ++i) flat[i] = value(rank, i);
  fill(wide, 2 * total, MARK);
  CHECK_MPI(
      MPI_Gatherv(flat, rank + 1, MPI_DOUBLE, wide, counts, displs, strided, root, MPI_COMM_WORLD));
  if (rank == root) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[r]; ++i) {
        EXPECT_INT("gatherv", (long long)wide[2 * (displs[r] + i)], (long long)value(r, i));
        EXPECT_INT("gatherv gap", (long long)wide[2 * (displs[r] + i) + 1], MARK);
      }
  }
  fill(flat, size, MARK);
  CHECK_MPI(MPI_Scatterv(wide, counts, displs, strided, flat, rank + 1, MPI_DOUBLE, root,
                         MPI_COMM_WORLD));
  for (int i = 0; i < rank + 1; ++i)
    EXPECT_INT("scatterv", (long long)flat[i], (long long)value(rank, i));
  fill(send, 2 * size, MARK);
  for (int i = 0; i < rank + 1; ++i) send[2 * i] = value(rank, i);
  fill(wide, 2 * total, MARK);
  CHECK_MPI(MPI_Allgatherv(send, rank + 1, strided, wide, counts, displs, strided, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < counts[r]; ++i) {
      EXPECT_INT("allgatherv", (long long)wide[2 * (displs[r] + i)], (long long)value(r, i));
      EXPECT_INT("allgatherv gap", (long long)wide[2 * (displs[r] + i) + 1], MARK);
    }
  /* Alltoallv: every rank sends d + 1 elements to rank d, so each receives rank + 1
   * elements from every rank. */
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN], stotal = 0;
  for (int d = 0; d < size; ++d) {
    scounts[d] = d + 1;
    sdispls[d] = stotal;
    stotal += scounts[d];
    rcounts[d] = rank + 1;
    rdispls[d] = d * (rank + 1);
  }
  fill(wide, 2 * stotal, MARK);
  for (int d = 0; d < size; ++d)
    for (int i = 0; i < scounts[d]; ++i) wide[2 * (sdispls[d] + i)] = value(rank, d * 100 + i);
  double got[2 * MAXN * MAXN];
  fill(got, 2 * size * (rank + 1), MARK);
  CHECK_MPI(MPI_Alltoallv(wide, scounts, sdispls, strided, got, rcounts, rdispls, strided,
                          MPI_COMM_WORLD));
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < rank + 1; ++i) {
      EXPECT_INT("alltoallv", (long long)got[2 * (rdispls[s] + i)],
                 (long long)value(s, rank * 100 + i));
      EXPECT_INT("alltoallv gap", (long long)got[2 * (rdispls[s] + i) + 1], MARK);
    }

  /* Reductions (a user op) on strided doubles: the gaps of the result keep their marker. */
  for (int i = 0; i < size; ++i) send[2 * i] = value(rank, i), send[2 * i + 1] = MARK;
  fill(recv, 2 * size, MARK);
  CHECK_MPI(MPI_Allreduce(send, recv, size, strided, sum, MPI_COMM_WORLD));
  expect_strided("allreduce", recv, size, column_sum);
  memcpy(recv, send, sizeof recv);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, recv, size, strided, sum, MPI_COMM_WORLD));
  expect_strided("allreduce in place", recv, size, column_sum);
  fill(recv, 2 * size, MARK);
  CHECK_MPI(MPI_Reduce(send, recv, size, strided, sum, root, MPI_COMM_WORLD));
  if (rank == root) expect_strided("reduce", recv, size, column_sum);
  /* A column of a matrix, summed into the same column. */
  fill(matrix, ROWS * size, MARK);
  for (int r = 0; r < ROWS; ++r) matrix[r * size] = value(rank, r);
  double summed[ROWS * MAXN];
  fill(summed, ROWS * size, MARK);
  CHECK_MPI(MPI_Allreduce(matrix, summed, 1, column, sum, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < size; ++c)
      EXPECT_INT("allreduce of a column", (long long)summed[r * size + c],
                 c == 0 ? (long long)column_sum(r) : MARK);

  /* Reduce_scatter_block: two strided elements per rank. */
  double in2[4 * MAXN], out2[4];
  fill(in2, 4 * size, MARK);
  for (int i = 0; i < 2 * size; ++i) in2[2 * i] = value(rank, i);
  fill(out2, 4, MARK);
  CHECK_MPI(MPI_Reduce_scatter_block(in2, out2, 2, strided, sum, MPI_COMM_WORLD));
  expect_strided("reduce_scatter_block", out2, 2, reduce_scatter_expected);

  /* Scan and Exscan. */
  fill(recv, 2 * size, MARK);
  CHECK_MPI(MPI_Scan(send, recv, size, strided, sum, MPI_COMM_WORLD));
  g_scan_last = rank;
  expect_strided("scan", recv, size, scan_expected);
  fill(recv, 2 * size, MARK);
  CHECK_MPI(MPI_Exscan(send, recv, size, strided, sum, MPI_COMM_WORLD));
  g_scan_last = rank - 1;
  if (rank > 0) expect_strided("exscan", recv, size, scan_expected);

  /* A user op on a padded struct (char, double, int): the function sees the structs. */
  int blocklengths[3] = {1, 1, 1};
  MPI_Aint offsets[3] = {offsetof(struct scored, tag), offsetof(struct scored, score),
                         offsetof(struct scored, owner)};
  MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  CHECK_MPI(MPI_Type_create_struct(3, blocklengths, offsets, members, &g_scored_type));
  CHECK_MPI(MPI_Type_commit(&g_scored_type));
  MPI_Op best_op;
  CHECK_MPI(MPI_Op_create(best, 1, &best_op));
  struct scored entries[2], winners[2];
  for (int i = 0; i < 2; ++i) {
    entries[i].tag = 'S';
    entries[i].score = (double)((rank * 5 + i) % 3);
    entries[i].owner = rank;
  }
  CHECK_MPI(MPI_Allreduce(entries, winners, 2, g_scored_type, best_op, MPI_COMM_WORLD));
  for (int i = 0; i < 2; ++i) {
    double top = -1;
    int owner = -1;
    for (int r = 0; r < size; ++r) {
      double s = (double)((r * 5 + i) % 3);
      if (s > top) top = s, owner = r;
    }
    EXPECT_INT("user op score", (long long)winners[i].score, (long long)top);
    EXPECT_INT("user op owner", winners[i].owner, owner);
    EXPECT_INT("user op tag", winners[i].tag, 'S');
  }
  /* Non-blocking forms unpack at completion. */
  MPI_Request reqs[2];
  fill(recv, 2 * size, MARK);
  for (int r = 0; r < ROWS; ++r) flat[r] = value(rank, r);
  fill(matrix, ROWS * size, MARK);
  CHECK_MPI(MPI_Iallreduce(send, recv, size, strided, sum, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(
      MPI_Iallgather(flat, ROWS, MPI_DOUBLE, matrix, 1, column_resized, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  expect_strided("iallreduce", recv, size, column_sum);
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < size; ++c)
      EXPECT_INT("iallgather into columns", (long long)matrix[r * size + c],
                 (long long)value(c, r));

  /* Persistent requests with a column: three rounds around the ring, the data changing
   * between them; a buffered one as well. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double out_m[ROWS * MAXN], in_m[ROWS * MAXN];
  MPI_Request persistent[2];
  CHECK_MPI(MPI_Send_init(out_m, 1, column, next, 5, MPI_COMM_WORLD, &persistent[0]));
  CHECK_MPI(MPI_Recv_init(in_m, 1, column, prev, 5, MPI_COMM_WORLD, &persistent[1]));
  for (int round = 0; round < 3; ++round) {
    fill(out_m, ROWS * size, MARK);
    fill(in_m, ROWS * size, MARK);
    for (int r = 0; r < ROWS; ++r) out_m[r * size] = value(rank, r + round);
    CHECK_MPI(MPI_Startall(2, persistent));
    CHECK_MPI(MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE));
    for (int r = 0; r < ROWS; ++r)
      for (int c = 0; c < size; ++c)
        EXPECT_INT("persistent column", (long long)in_m[r * size + c],
                   c == 0 ? (long long)value(prev, r + round) : MARK);
  }
  CHECK_MPI(MPI_Request_free(&persistent[0]));
  /* Room for both rounds' copies, whenever the first one leaves. */
  int bsize = 2 * (ROWS * (int)sizeof(double) + MPI_BSEND_OVERHEAD);
  void *attached = xmalloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(attached, bsize));
  CHECK_MPI(MPI_Bsend_init(out_m, 1, column, next, 5, MPI_COMM_WORLD, &persistent[0]));
  for (int round = 0; round < 2; ++round) {
    for (int r = 0; r < ROWS; ++r) out_m[r * size] = value(rank, 50 + r + round);
    fill(in_m, ROWS * size, MARK);
    CHECK_MPI(MPI_Start(&persistent[1]));
    CHECK_MPI(MPI_Start(&persistent[0]));
    for (int r = 0; r < ROWS; ++r) out_m[r * size] = MARK; /* the copy has been made */
    CHECK_MPI(MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE));
    for (int r = 0; r < ROWS; ++r)
      EXPECT_INT("buffered persistent column", (long long)in_m[r * size],
                 (long long)value(prev, 50 + r + round));
  }
  void *detached;
  CHECK_MPI(MPI_Buffer_detach(&detached, &bsize));
  free(detached);
  CHECK_MPI(MPI_Request_free(&persistent[0]));
  CHECK_MPI(MPI_Request_free(&persistent[1]));

  CHECK_MPI(MPI_Op_free(&best_op));
  CHECK_MPI(MPI_Type_free(&g_scored_type));
  CHECK_MPI(MPI_Op_free(&sum));
  for (int t = 0; t < 3; ++t) CHECK_MPI(MPI_Type_free(&all_types[t]));
  finalize_and_report(size);
  return 0;
}

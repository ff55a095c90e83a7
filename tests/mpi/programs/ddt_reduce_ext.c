/*
 * ddt_reduce_ext.c - predefined reduction operations on derived datatypes whose basic
 * elements are all one predefined type, which weft (like MPICH) accepts beyond the
 * standard: the standard defines MPI_SUM and the rest on predefined datatypes only,
 * and Open MPI refuses them on any derived one. So this program runs on weft alone.
 *
 * Checked against a serial reference: MPI_SUM over "every other double" (a double
 * resized to two) in Allreduce, Reduce and Scan; MPI_MAX over a matrix column
 * (MPI_Type_vector); MPI_MAXLOC over a contiguous run of MPI_2INT pairs. Refused with
 * MPI_ERR_TYPE: MPI_SUM on a struct mixing a double and an int, and MPI_MAXLOC on a
 * contiguous run of MPI_DOUBLE_INT (a padded pair, whose packed values lose their
 * stride).
 */
#define PROGRAM "ddt_reduce_ext"
#include "check.h"

enum { ROWS = 3, MAXN = 8, MARK = -7 };

static double value(int rank, int i) { return rank * 1000 + i; }

/* Fails unless the even elements of `a` (n of them) are expected[i] and the odd ones
 * still MARK. */
static void expect_strided(const char *what, const double *a, int n, const double *expected) {
  for (int i = 0; i < n; ++i) {
    EXPECT_INT(what, (long long)a[2 * i], (long long)expected[i]);
    EXPECT_INT(what, (long long)a[2 * i + 1], MARK);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > MAXN) fail("at most %d ranks", MAXN);

  MPI_Datatype strided, column, pairs, padded_pairs;
  CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &strided));
  CHECK_MPI(MPI_Type_vector(ROWS, 1, size, MPI_DOUBLE, &column));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_2INT, &pairs));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &padded_pairs));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_Type_commit(&column));
  CHECK_MPI(MPI_Type_commit(&pairs));
  CHECK_MPI(MPI_Type_commit(&padded_pairs));

  double send[2 * MAXN], recv[2 * MAXN], sums[MAXN], prefix[MAXN];
  for (int i = 0; i < size; ++i) {
    send[2 * i] = value(rank, i), send[2 * i + 1] = MARK;
    sums[i] = prefix[i] = 0;
    for (int r = 0; r < size; ++r) sums[i] += value(r, i);
    for (int r = 0; r <= rank; ++r) prefix[i] += value(r, i);
  }
  for (int i = 0; i < 2 * size; ++i) recv[i] = MARK;
  CHECK_MPI(MPI_Allreduce(send, recv, size, strided, MPI_SUM, MPI_COMM_WORLD));
  expect_strided("allreduce MPI_SUM over strided doubles", recv, size, sums);
  for (int i = 0; i < 2 * size; ++i) recv[i] = MARK;
  CHECK_MPI(MPI_Reduce(send, recv, size, strided, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0) expect_strided("reduce MPI_SUM over strided doubles", recv, size, sums);
  for (int i = 0; i < 2 * size; ++i) recv[i] = MARK;
  CHECK_MPI(MPI_Scan(send, recv, size, strided, MPI_SUM, MPI_COMM_WORLD));
  expect_strided("scan MPI_SUM over strided doubles", recv, size, prefix);

  /* MPI_MAX over a column, in place: the other columns are left alone. */
  double matrix[ROWS * MAXN];
  for (int i = 0; i < ROWS * size; ++i) matrix[i] = MARK;
  for (int r = 0; r < ROWS; ++r) matrix[r * size] = (rank * 3 + r) % size;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, matrix, 1, column, MPI_MAX, MPI_COMM_WORLD));
  for (int r = 0; r < ROWS; ++r) {
    int top = -1;
    for (int q = 0; q < size; ++q)
      if ((q * 3 + r) % size > top) top = (q * 3 + r) % size;
    for (int c = 0; c < size; ++c)
      EXPECT_INT("allreduce MPI_MAX over a column", (long long)matrix[r * size + c],
                 c == 0 ? top : MARK);
  }

  /* MPI_MAXLOC over three MPI_2INT pairs per element. */
  int pin[6], pout[6];
  for (int i = 0; i < 3; ++i) pin[2 * i] = (rank * 7 + i * 3) % size, pin[2 * i + 1] = rank;
  CHECK_MPI(MPI_Allreduce(pin, pout, 1, pairs, MPI_MAXLOC, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) {
    int best_v = -1, best_r = -1;
    for (int r = 0; r < size; ++r) {
      int v = (r * 7 + i * 3) % size;
      if (v > best_v) best_v = v, best_r = r;
    }
    EXPECT_INT("maxloc value", pout[2 * i], best_v);
    EXPECT_INT("maxloc rank", pout[2 * i + 1], best_r);
  }

  /* What stays refused, with MPI_ERR_TYPE and nothing written. */
  struct {
    double d;
    int i;
  } mixed = {1.0, 2}, mixed_out = {-1.0, -1};
  int blocklengths[2] = {1, 1};
  MPI_Aint displacements[2] = {0, sizeof(double)};
  MPI_Datatype members[2] = {MPI_DOUBLE, MPI_INT}, mixed_type;
  CHECK_MPI(MPI_Type_create_struct(2, blocklengths, displacements, members, &mixed_type));
  CHECK_MPI(MPI_Type_commit(&mixed_type));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = -1;
  CHECK_MPI(MPI_Error_class(
      MPI_Allreduce(&mixed, &mixed_out, 1, mixed_type, MPI_SUM, MPI_COMM_WORLD), &cls));
  EXPECT_INT("MPI_SUM on a struct of a double and an int: error class", cls, MPI_ERR_TYPE);
  EXPECT_INT("the refused reduction's output", (long long)mixed_out.d, -1);
  struct {
    double d;
    int i;
  } located[2] = {{1.0, rank}, {2.0, rank}}, located_out[2];
  CHECK_MPI(MPI_Error_class(
      MPI_Allreduce(located, located_out, 1, padded_pairs, MPI_MAXLOC, MPI_COMM_WORLD), &cls));
  EXPECT_INT("MPI_MAXLOC on a run of MPI_DOUBLE_INT: error class", cls, MPI_ERR_TYPE);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  CHECK_MPI(MPI_Type_free(&mixed_type));
  CHECK_MPI(MPI_Type_free(&padded_pairs));
  CHECK_MPI(MPI_Type_free(&pairs));
  CHECK_MPI(MPI_Type_free(&column));
  CHECK_MPI(MPI_Type_free(&strided));
  finalize_and_report(size);
  return 0;
}

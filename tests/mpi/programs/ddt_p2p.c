/*
 * ddt_p2p.c - derived datatypes in point-to-point messages.
 *
 * Around the ring: a column of a row-major matrix (MPI_Type_vector) sent with MPI_Send
 * and received into a contiguous array of MPI_DOUBLE; a contiguous array sent and
 * received into a column; an array of C structs with padding (MPI_Type_create_struct,
 * resized to the C extent) through MPI_Isend/MPI_Irecv; an indexed selection through
 * MPI_Sendrecv. MPI_Get_count and MPI_Get_elements report the derived counts, and
 * elements of the receive buffer outside the type are left untouched. A contiguous
 * derived type also goes through MPI_Bcast.
 */
#define PROGRAM "ddt_p2p"
#include "check.h"

enum { ROWS = 5, COLS = 4 };

struct particle {
  char kind;
  double position[3];
  int id;
};

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  /* A column of a ROWS x COLS matrix, out and back. */
  MPI_Datatype column;
  CHECK_MPI(MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column));
  CHECK_MPI(MPI_Type_commit(&column));
  double matrix[ROWS][COLS], flat[ROWS];
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) matrix[r][c] = rank * 100 + r * 10 + c;
  MPI_Request req;
  MPI_Status st;
  int count = -1;
  CHECK_MPI(MPI_Irecv(flat, ROWS, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(&matrix[0][2], 1, column, next, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&req, &st));
  for (int r = 0; r < ROWS; ++r)
    EXPECT_INT("column as doubles", (int)flat[r], prev * 100 + r * 10 + 2);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  EXPECT_INT("count of doubles", count, ROWS);

  /* Contiguous doubles into a column: the other columns stay as they were. */
  double into[ROWS][COLS];
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) into[r][c] = -1;
  for (int r = 0; r < ROWS; ++r) flat[r] = rank + r;
  CHECK_MPI(MPI_Irecv(&into[0][1], 1, column, prev, 2, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(flat, ROWS, MPI_DOUBLE, next, 2, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&req, &st));
  for (int r = 0; r < ROWS; ++r) {
    for (int c = 0; c < COLS; ++c) {
      EXPECT_INT("matrix after a column receive", (int)into[r][c], c == 1 ? prev + r : -1);
    }
  }
  CHECK_MPI(MPI_Get_count(&st, column, &count));
  EXPECT_INT("count of columns", count, 1);
  CHECK_MPI(MPI_Get_elements(&st, column, &count));
  EXPECT_INT("elements of a column", count, ROWS);

  /* Structs with padding, as the C compiler lays them out. */
  MPI_Datatype particle_type, resized;
  int lengths[3] = {1, 3, 1};
  MPI_Aint displs[3], base;
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  struct particle out[3], in[3];
  CHECK_MPI(MPI_Get_address(&out[0], &base));
  CHECK_MPI(MPI_Get_address(&out[0].kind, &displs[0]));
  CHECK_MPI(MPI_Get_address(&out[0].position, &displs[1]));
  CHECK_MPI(MPI_Get_address(&out[0].id, &displs[2]));
  for (int i = 0; i < 3; ++i) displs[i] -= base;
  CHECK_MPI(MPI_Type_create_struct(3, lengths, displs, types, &particle_type));
  CHECK_MPI(MPI_Type_create_resized(particle_type, 0, sizeof(struct particle), &resized));
  CHECK_MPI(MPI_Type_commit(&resized));
  for (int i = 0; i < 3; ++i) {
    out[i].kind = (char)('a' + rank);
    for (int d = 0; d < 3; ++d) out[i].position[d] = rank + i * 0.5 + d;
    out[i].id = rank * 10 + i;
    in[i].kind = 0;
    in[i].id = -1;
  }
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Irecv(in, 3, resized, prev, 3, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(out, 3, resized, next, 3, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 3; ++i) {
    EXPECT_INT("particle kind", in[i].kind, 'a' + prev);
    EXPECT_INT("particle id", in[i].id, prev * 10 + i);
    for (int d = 0; d < 3; ++d)
      EXPECT_INT("particle position x2", (int)(2 * in[i].position[d]), 2 * prev + i + 2 * d);
  }

  /* An indexed selection, both ways at once. */
  MPI_Datatype picked;
  int block_lengths[3] = {2, 1, 3}, offsets[3] = {0, 4, 7};
  CHECK_MPI(MPI_Type_indexed(3, block_lengths, offsets, MPI_INT, &picked));
  CHECK_MPI(MPI_Type_commit(&picked));
  int values[10], got[10];
  for (int i = 0; i < 10; ++i) {
    values[i] = rank * 100 + i;
    got[i] = -1;
  }
  CHECK_MPI(MPI_Sendrecv(values, 1, picked, next, 4, got, 1, picked, prev, 4, MPI_COMM_WORLD, &st));
  for (int i = 0; i < 10; ++i) {
    int in_type = i < 2 || i == 4 || (i >= 7 && i < 10);
    EXPECT_INT("indexed receive", got[i], in_type ? prev * 100 + i : -1);
  }
  CHECK_MPI(MPI_Get_elements(&st, picked, &count));
  EXPECT_INT("elements of the indexed type", count, 6);

  /* A contiguous derived type in a collective. */
  MPI_Datatype triple;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &triple));
  CHECK_MPI(MPI_Type_commit(&triple));
  int shared[6];
  for (int i = 0; i < 6; ++i) shared[i] = rank == 0 ? 7 * i : -1;
  CHECK_MPI(MPI_Bcast(shared, 2, triple, 0, MPI_COMM_WORLD));
  for (int i = 0; i < 6; ++i) EXPECT_INT("broadcast triples", shared[i], 7 * i);

  CHECK_MPI(MPI_Type_free(&column));
  CHECK_MPI(MPI_Type_free(&particle_type));
  CHECK_MPI(MPI_Type_free(&resized));
  CHECK_MPI(MPI_Type_free(&picked));
  CHECK_MPI(MPI_Type_free(&triple));
  finalize_and_report(size);
  return 0;
}

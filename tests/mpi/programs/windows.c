/*
 * windows.c - the life cycle of one-sided windows, as benchmark suites' shared set-up
 * code uses it (OSU's creates its windows by MPI_Win_create, MPI_Win_allocate or
 * MPI_Win_create_dynamic with MPI_Win_attach, and frees them with MPI_Win_free).
 *
 * Checks:
 *   - MPI_Win_create over the program's array, on MPI_COMM_WORLD and on a
 *     split communicator; MPI_Win_free sets MPI_WIN_NULL and leaves the array
 *     as it was.
 *   - MPI_Win_allocate returns writable memory of the size asked for (and a
 *     window of 0 bytes is fine).
 *   - MPI_Win_create_dynamic, then MPI_Win_attach and MPI_Win_detach of a
 *     region.
 *   - Creation is collective: messages before and after it still match.
 *
 * Prints "windows: OK (N ranks)" from rank 0.
 */
#define PROGRAM "windows"
#include "check.h"

enum { N = 1024 };

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  int array[N];
  for (int i = 0; i < N; ++i) array[i] = rank * N + i;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(array, sizeof array, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  if (win == MPI_WIN_NULL) fail("MPI_Win_create gave MPI_WIN_NULL");
  CHECK_MPI(MPI_Win_free(&win));
  if (win != MPI_WIN_NULL) fail("MPI_Win_free did not set MPI_WIN_NULL");
  for (int i = 0; i < N; ++i) EXPECT_INT("the array after its window", array[i], rank * N + i);

  MPI_Comm halves;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves));
  CHECK_MPI(MPI_Win_create(array, sizeof array, 1, MPI_INFO_NULL, halves, &win));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&halves));

  int *memory = NULL;
  CHECK_MPI(
      MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win));
  if (memory == NULL) fail("MPI_Win_allocate gave no memory");
  for (int i = 0; i < N; ++i) memory[i] = i;
  long long sum = 0;
  for (int i = 0; i < N; ++i) sum += memory[i];
  EXPECT_INT("the sum over MPI_Win_allocate's memory", sum, (long long)N * (N - 1) / 2);
  CHECK_MPI(MPI_Win_free(&win));
  void *nothing = NULL;
  CHECK_MPI(MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &nothing, &win));
  CHECK_MPI(MPI_Win_free(&win));

  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_attach(win, array, sizeof array));
  CHECK_MPI(MPI_Win_detach(win, array));
  CHECK_MPI(MPI_Win_free(&win));

  /* Messages still match around the creations. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, out = rank, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  EXPECT_INT("a ring message after the windows", in, prev);

  finalize_and_report(size);
  return 0;
}

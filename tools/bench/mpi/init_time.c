// How long MPI_Init takes: every rank times its own call, and rank 0 prints the
// slowest, with the world's size. The same source is built with weft's mpicc and with
// another MPI's (tools/bench/init_time.sh).
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  const double start = now_seconds();
  MPI_Init(&argc, &argv);
  double mine = now_seconds() - start, slowest = 0;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks: slowest MPI_Init %.2f s\n", size, slowest);
  MPI_Finalize();
  return 0;
}

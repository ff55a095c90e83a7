/* MPI_Abort while the other ranks wait: rank 1 aborts with error code 7 while every other
 * rank is blocked in MPI_Recv from it (with the default handler, MPI_ERRORS_ARE_FATAL).
 * Their receives must fail at once, naming rank 1's abort, instead of waiting for the
 * launcher to notice that rank 1 has gone. Run by mpi_programs_test, which checks the
 * output; it is not one of the programs that end in "OK". */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    usleep(300 * 1000); /* the others are blocked by then */
    MPI_Abort(MPI_COMM_WORLD, 7);
  }
  MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d: the receive completed, which it must not\n", rank);
  MPI_Finalize();
  return 0;
}

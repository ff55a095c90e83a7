/*
 * collective_write.c - the bandwidth of one collective write, against writing the same
 * bytes with plain POSIX from one process (docs/BENCHMARKS.md, tools/bench/compare_io.sh).
 *
 *   collective_write PATH [MIB] [BLOCK] [--posix] [--hints KEY=VALUE,...]
 *
 * Every rank writes MIB/size MiB (default 1024 MiB in all) to PATH in one
 * MPI_File_write_at_all, as blocks of BLOCK bytes (default 65536) that interleave with
 * the other ranks' (rank r's are every size-th block from block r: a vector filetype),
 * then MPI_File_sync and MPI_File_close. The time runs from a barrier before the open
 * to the end of the close on the slowest rank. With --posix, one process (run it on
 * 1 rank) writes the same MIB with pwrite in 16 MiB pieces, then fsync and close.
 * --hints passes info hints to MPI_File_open (cb_nodes=4,cb_buffer_size=33554432).
 * Prints "collective_write: BYTES bytes, SECONDS s, MB/s" (MB = 10^6 bytes).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "collective_write: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static double posix_write(const char *path, int64_t bytes, const char *data, int64_t piece) {
  double start = MPI_Wtime();
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) die("cannot create the file");
  for (int64_t at = 0; at < bytes; at += piece) {
    int64_t n = bytes - at < piece ? bytes - at : piece;
    for (int64_t done = 0; done < n;) {
      ssize_t w = pwrite(fd, data + done, (size_t)(n - done), at + done);
      if (w <= 0) die("pwrite failed");
      done += w;
    }
  }
  if (fsync(fd) != 0 || close(fd) != 0) die("fsync or close failed");
  return MPI_Wtime() - start;
}

int main(int argc, char **argv) {
  int rank, size, posix = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *args[3] = {NULL, "1024", "65536"};
  int nargs = 0;
  MPI_Info hints;
  MPI_Info_create(&hints);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--posix") == 0) {
      posix = 1;
    } else if (strcmp(argv[i], "--hints") == 0 && i + 1 < argc) {
      char *list = strdup(argv[++i]), *save = NULL;
      for (char *pair = strtok_r(list, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (eq == NULL) die("--hints takes KEY=VALUE pairs");
        *eq = '\0';
        MPI_Info_set(hints, pair, eq + 1);
      }
      free(list);
    } else if (nargs < 3) {
      args[nargs++] = argv[i];
    }
  }
  if (args[0] == NULL) die("usage: collective_write PATH [MIB] [BLOCK] [--posix]");
  const int64_t total = atoll(args[1]) << 20;
  const int64_t block = atoll(args[2]);
  if (total <= 0 || block <= 0 || total % ((int64_t)block * size) != 0) {
    die("MIB must be a multiple of BLOCK times the number of ranks");
  }
  const int64_t mine = total / size;
  const int64_t piece = posix ? (16 << 20) : mine;
  char *data = malloc((size_t)(posix ? piece : mine));
  if (data == NULL) die("out of memory");
  for (int64_t i = 0; i < (posix ? piece : mine); ++i) data[i] = (char)(i * 7 + rank);

  double seconds;
  if (posix) {
    if (size != 1) die("--posix runs on one rank");
    unlink(args[0]);
    seconds = posix_write(args[0], total, data, piece);
  } else {
    MPI_Datatype blocks, filetype;
    int64_t count = mine / block;
    MPI_Type_vector((int)count, (int)block, (int)(block * size), MPI_BYTE, &blocks);
    MPI_Type_create_resized(blocks, 0, (MPI_Aint)total, &filetype);
    MPI_Type_commit(&filetype);
    if (rank == 0) unlink(args[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, args[0], MPI_MODE_CREATE | MPI_MODE_WRONLY, hints, &fh) !=
        MPI_SUCCESS) {
      die("MPI_File_open failed");
    }
    MPI_File_set_view(fh, (MPI_Offset)rank * block, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
    if (MPI_File_write_at_all(fh, 0, data, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      die("MPI_File_write_at_all failed");
    }
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    double mine_seconds = MPI_Wtime() - start;
    MPI_Reduce(&mine_seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Type_free(&filetype);
    MPI_Type_free(&blocks);
  }
  if (rank == 0) {
    printf("collective_write: %lld bytes, %.3f s, %.0f MB/s\n", (long long)total, seconds,
           total / seconds / 1e6);
  }
  free(data);
  MPI_Info_free(&hints);
  MPI_Finalize();
  return 0;
}

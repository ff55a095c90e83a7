/*
 * file_collective.c - collective reads and writes whose parts interleave in the file
 * (what collective buffering, or two-phase I/O, is for), checked byte by byte.
 *
 * Every rank sees blocks of 3 ints, every size-th block, through a vector filetype
 * (rank r's blocks start at block r), so the ranks' parts interleave. Checks, under
 * several sets of hints (the defaults; cb_buffer_size of 4 KiB and cb_nodes 2, which
 * make many rounds and more than one aggregator; romio_cb_write and romio_cb_read
 * "disable", which turn collective buffering off):
 *   - MPI_File_write_at_all of K blocks per rank, one rank writing none: rank 0 then
 *     reads the whole file through the default view, and every int is its index;
 *   - MPI_File_read_all through the same view gets each rank's ints back;
 *   - MPI_File_read_at_all of one block more than the file holds: MPI_Get_count says
 *     how many ints came, and the buffer past them is untouched;
 *   - MPI_File_write_all from a strided memory datatype.
 *
 * Valid MPI, but run with weft only: Debian's Open MPI 4.1 reads past the end of the
 * file on 3 ranks (MPI_Get_count says 3003 ints where the file holds 3000 of the rank's).
 *
 * Prints "file_collective: OK (N ranks)" from rank 0.
 */
#define PROGRAM "file_collective"
#include "check.h"

#include <string.h>

enum { K = 1000, BLOCK = 3 };

static int rank, size;

/* The index, in ints of the file, of element i of `r`'s part. */
static int file_index(int r, int i) { return (i / BLOCK * size + r) * BLOCK + i % BLOCK; }

static void set_view(MPI_File fh) {
  MPI_Datatype blocks, filetype;
  CHECK_MPI(MPI_Type_vector(K + 1, BLOCK, BLOCK * size, MPI_INT, &blocks));
  CHECK_MPI(MPI_Type_create_resized(blocks, 0, (MPI_Aint)(K + 1) * BLOCK * size * sizeof(int),
                                    &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK * sizeof(int), MPI_INT, filetype,
                              "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_Type_free(&filetype));
  CHECK_MPI(MPI_Type_free(&blocks));
}

static void round_trip(const char *path, MPI_Info hints, const char *which) {
  /* The last rank (of two or more) writes nothing. */
  int count = size > 1 && rank == size - 1 ? 0 : K * BLOCK;
  int writers = size > 1 ? size - 1 : 1;
  int *out = xmalloc(K * BLOCK * sizeof(int));
  for (int i = 0; i < K * BLOCK; ++i) out[i] = file_index(rank, i);
  MPI_File fh;
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh));
  set_view(fh);
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, count, MPI_INT, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Every int of the file, by rank 0 through the default view. */
  if (rank == 0) {
    MPI_File plain;
    MPI_Offset bytes = 0;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &plain));
    CHECK_MPI(MPI_File_get_size(plain, &bytes));
    /* The file ends with the last writer's last block. */
    int expected_ints = ((K - 1) * size + writers) * BLOCK;
    EXPECT_INT(which, bytes, (long long)expected_ints * sizeof(int));
    int *all = xmalloc(bytes);
    CHECK_MPI(MPI_File_read_at(plain, 0, all, expected_ints, MPI_INT, MPI_STATUS_IGNORE));
    /* The silent rank's blocks nobody wrote: what they hold is not checked (Open MPI's
     * collective buffering fills them with what its buffer held). */
    for (int i = 0; i < expected_ints; ++i) {
      if (size > 1 && i / BLOCK % size == size - 1) continue;
      if (all[i] != i) fail("%s: int %d of the file is %d, expected %d", which, i, all[i], i);
    }
    free(all);
    CHECK_MPI(MPI_File_close(&plain));
  }

  /* Back through the view, collectively. */
  int *in = xmalloc((K + 1) * BLOCK * sizeof(int));
  for (int i = 0; i < (K + 1) * BLOCK; ++i) in[i] = -7;
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, in, count, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < count; ++i) EXPECT_INT(which, in[i], out[i]);

  /* One block more than was written: the reads stop at the end of the file. */
  MPI_Status status;
  int got = -1;
  for (int i = 0; i < (K + 1) * BLOCK; ++i) in[i] = -7;
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, (K + 1) * BLOCK, MPI_INT, &status));
  CHECK_MPI(MPI_Get_count(&status, MPI_INT, &got));
  /* The silent rank's blocks (unwritten) reach up to its last, which is past the end. */
  int readable = rank < writers ? K * BLOCK : (K - 1) * BLOCK;
  EXPECT_INT("ints read up to the end of the file", got, readable);
  for (int i = 0; i < readable && rank < writers; ++i) EXPECT_INT(which, in[i], out[i]);
  EXPECT_INT("the int after the end of the file", in[got], -7);

  /* From every other int of a memory buffer (a strided memory datatype). */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(K * BLOCK, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  int *spread = xmalloc(2 * K * BLOCK * sizeof(int));
  for (int i = 0; i < K * BLOCK; ++i) spread[2 * i] = -out[i], spread[2 * i + 1] = 99;
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write_all(fh, spread, count ? 1 : 0, strided, MPI_STATUS_IGNORE));
  for (int i = 0; i < K * BLOCK; ++i) in[i] = 0;
  CHECK_MPI(MPI_File_read_at_all(fh, 0, in, count, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < count; ++i) EXPECT_INT("an int written from a strided buffer", in[i], -out[i]);
  CHECK_MPI(MPI_Type_free(&strided));

  CHECK_MPI(MPI_File_close(&fh));
  free(spread);
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  char path[512];
  const char *dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  snprintf(path, sizeof path, "%s/file_collective.%d", dir, size);

  round_trip(path, MPI_INFO_NULL, "default hints");
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "cb_buffer_size", "4096"));
  CHECK_MPI(MPI_Info_set(hints, "cb_nodes", "2"));
  round_trip(path, hints, "small buffer, two aggregators");
  CHECK_MPI(MPI_Info_set(hints, "romio_cb_write", "disable"));
  CHECK_MPI(MPI_Info_set(hints, "romio_cb_read", "disable"));
  round_trip(path, hints, "collective buffering off");
  CHECK_MPI(MPI_Info_free(&hints));

  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  finalize_and_report(size);
  return 0;
}

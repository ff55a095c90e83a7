/* MPI-IO on a real file: a strided view written collectively and read back through
 * another rank's view and through the default view, explicit offsets, the shared file
 * pointer (independent and ordered accesses), seeks, sizes, a
 * read at the end of the file, and the errors of opening and of a read-only file. The
 * file lives under $TEST_TMPDIR (or /tmp) and is removed. */
#define PROGRAM "file_io"
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { B = 3, N = 5 }; /* each rank's blocks of B ints, N of them, interleaved by rank */

static int value(int rank, int i) { return 1000 * (rank + 1) + i; }

static int error_class(int rc) {
  int cls;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Every rank's view: blocks of B ints, one per rank in turn, this rank's at `rank`. */
static void set_strided_view(MPI_File fh, int rank, int size, MPI_Datatype *filetype) {
  MPI_Datatype block;
  CHECK_MPI(MPI_Type_contiguous(B, MPI_INT, &block));
  CHECK_MPI(MPI_Type_create_resized(block, 0, (MPI_Aint)(size * B * sizeof(int)), filetype));
  CHECK_MPI(MPI_Type_commit(filetype));
  CHECK_MPI(MPI_Type_free(&block));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * B * sizeof(int)), MPI_INT, *filetype,
                              "native", MPI_INFO_NULL));
}

/* The whole file, read collectively through the current (byte or int) view. */
static int *whole_file(MPI_File fh, int ints) {
  int *all = xmalloc(ints * sizeof(int));
  MPI_Status st;
  int got;
  CHECK_MPI(MPI_File_read_at_all(fh, 0, all, ints, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  EXPECT_INT("ints read of the whole file", got, ints);
  return all;
}

static void sync_all(MPI_File fh) {
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_rank = rank;

  char path[512], missing[600], scratch[600];
  if (rank == 0) {
    const char *dir = getenv("TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/file_io_%ld.dat", dir && *dir ? dir : "/tmp", (long)getpid());
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(missing, sizeof missing, "%s.missing", path);
  snprintf(scratch, sizeof scratch, "%s.scratch", path);
  MPI_File fh;

  /* Errors of opening, returned (files default to MPI_ERRORS_RETURN). */
  int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  EXPECT_INT("opening a missing file", error_class(rc), MPI_ERR_NO_SUCH_FILE);
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  EXPECT_INT("MPI_MODE_RDONLY | MPI_MODE_CREATE", error_class(rc), MPI_ERR_AMODE);
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                     MPI_INFO_NULL, &fh);
  EXPECT_INT("MPI_MODE_RDWR | MPI_MODE_WRONLY", error_class(rc), MPI_ERR_AMODE);

  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                          MPI_INFO_NULL, &fh));
  int amode;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  EXPECT_INT("amode", amode, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL);

  /* 1. A strided view, written collectively. */
  MPI_Datatype filetype;
  set_strided_view(fh, rank, size, &filetype);
  int mine[B * N];
  for (int i = 0; i < B * N; ++i) mine[i] = value(rank, i);
  MPI_Status st;
  int got;
  CHECK_MPI(MPI_File_write_all(fh, mine, B * N, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  EXPECT_INT("ints written", got, B * N);
  MPI_Offset pos;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  EXPECT_INT("position after the write", pos, B * N);
  MPI_Offset byte;
  CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &byte));
  EXPECT_INT("byte offset of int B + 1", byte, (size * B + rank * B + 1) * (MPI_Offset)sizeof(int));
  sync_all(fh);
  MPI_Offset fsize;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  EXPECT_INT("file size", fsize, (MPI_Offset)size * B * N * sizeof(int));

  /* The next rank's data, through the next rank's view. */
  int peer = (rank + 1) % size;
  MPI_Datatype peer_type;
  CHECK_MPI(MPI_Type_free(&filetype));
  set_strided_view(fh, peer, size, &peer_type);
  int theirs[B * N];
  CHECK_MPI(MPI_File_read_at(fh, 0, theirs, B * N, MPI_INT, &st));
  for (int i = 0; i < B * N; ++i) EXPECT_INT("the next rank's int", theirs[i], value(peer, i));
  /* Its end: a read from the last int on gets one. */
  CHECK_MPI(MPI_File_seek(fh, B * N - 2, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_seek(fh, 1, MPI_SEEK_CUR));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  EXPECT_INT("position after the seeks", pos, B * N - 1);
  CHECK_MPI(MPI_File_read(fh, theirs, 4, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  EXPECT_INT("ints read at the end of the file", got, 1);
  EXPECT_INT("the last int", theirs[0], value(peer, B * N - 1));
  CHECK_MPI(MPI_Type_free(&peer_type));

  /* The whole file, interleaved as the serial reference says. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int *all = whole_file(fh, size * B * N);
  for (int n = 0; n < N; ++n)
    for (int r = 0; r < size; ++r)
      for (int b = 0; b < B; ++b)
        EXPECT_INT("interleaved int", all[(n * size + r) * B + b], value(r, n * B + b));
  free(all);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* 2. The shared file pointer: each rank appends K ints of its own. */
  enum { K = 4 };
  CHECK_MPI(MPI_File_set_size(fh, 0));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int block[K];
  for (int i = 0; i < K; ++i) block[i] = rank;
  CHECK_MPI(MPI_File_write_shared(fh, block, K, MPI_INT, &st));
  sync_all(fh);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  EXPECT_INT("shared pointer after the shared writes", pos, size * K);
  CHECK_MPI(MPI_File_seek(fh, -1, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  EXPECT_INT("position before the end", pos, size * K - 1);
  all = whole_file(fh, size * K);
  int seen[64] = {0};
  for (int k = 0; k < size; ++k) {
    int owner = all[k * K];
    if (owner < 0 || owner >= size) fail("block %d: owner %d", k, owner);
    for (int i = 0; i < K; ++i) EXPECT_INT("int of a shared block", all[k * K + i], owner);
    seen[owner]++;
  }
  for (int r = 0; r < size; ++r) EXPECT_INT("blocks of a rank", seen[r], 1);
  free(all);

  /* 3. Ordered: rank r writes r + 1 ints after those, in rank order; then reads them. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int ordered[64];
  for (int i = 0; i <= rank; ++i) ordered[i] = value(rank, i);
  CHECK_MPI(MPI_File_write_ordered(fh, ordered, rank + 1, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  EXPECT_INT("ints of the ordered write", got, rank + 1);
  sync_all(fh);
  int total = size * K + size * (size + 1) / 2;
  all = whole_file(fh, total);
  int at = size * K;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i) EXPECT_INT("ordered int", all[at++], value(r, i));
  free(all);
  CHECK_MPI(MPI_File_seek_shared(fh, size * K, MPI_SEEK_SET));
  memset(ordered, 0, sizeof ordered);
  CHECK_MPI(MPI_File_read_ordered(fh, ordered, rank + 1, MPI_INT, &st));
  for (int i = 0; i <= rank; ++i) EXPECT_INT("int read in order", ordered[i], value(rank, i));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  EXPECT_INT("shared pointer after the ordered read", pos, total);
  CHECK_MPI(MPI_File_close(&fh));
  EXPECT_INT("handle after close", fh == MPI_FILE_NULL, 1);

  /* 4. Read-only: writes fail, through the file's handler (MPI_ERRORS_RETURN). */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  int v = 7;
  rc = MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st);
  int cls = error_class(rc);
  if (cls != MPI_ERR_READ_ONLY && cls != MPI_ERR_ACCESS)
    fail("writing a read-only file: error class %d", cls);
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  EXPECT_INT("size after reopening", fsize, (MPI_Offset)total * sizeof(int));
  CHECK_MPI(MPI_File_close(&fh));

  /* 5. Deleted on close; and deleted explicitly. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, scratch,
                          MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_close(&fh));
  rc = MPI_File_open(MPI_COMM_SELF, scratch, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  EXPECT_INT("opening a file deleted on close", error_class(rc), MPI_ERR_NO_SUCH_FILE);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  EXPECT_INT("opening the deleted file", error_class(rc), MPI_ERR_NO_SUCH_FILE);

  finalize_and_report(size);
  return 0;
}

/*
 * rma_ext.c - what weft's one-sided communication guarantees beyond the standard's
 * minimum, and the errors it detects.
 *
 * Checks:
 *   - passive-target progress: rank 0 computes without calling MPI while every other
 *     rank locks its window exclusively, adds to a counter in it with MPI_Fetch_and_op
 *     and unlocks; rank 0 sees the count reach size - 1 by loading its own memory
 *     (Open MPI may need the target to enter MPI for this);
 *   - with MPI_ERRORS_RETURN on the window: MPI_Put outside an epoch is
 *     MPI_ERR_RMA_SYNC, past or across the window's end MPI_ERR_RMA_RANGE (MPI_Get
 *     too), at a negative displacement MPI_ERR_DISP, to a rank outside
 *     the group MPI_ERR_RANK; MPI_Win_unlock of a rank not locked MPI_ERR_RMA_SYNC; an
 *     unknown lock type MPI_ERR_LOCKTYPE; MPI_Accumulate with a user-defined operation
 *     MPI_ERR_OP; and a window stays usable after each;
 *   - MPI_Win_get_info: a hint given at creation, and the standard's defaults of the
 *     others (accumulate_ordering "rar,raw,war,waw", no_locks "false");
 *   - MPI_Accumulate of MPI_DOUBLE_INT pairs with MPI_MAXLOC (standard, but Debian's
 *     Open MPI's one-sided component refuses it).
 *
 * Prints "rma_ext: OK (N ranks)" from rank 0.
 */
#define PROGRAM "rma_ext"
#include "check.h"

#include <string.h>

enum { N = 16 };

static void maxloc(MPI_Win win, int rank, int size) {
  struct {
    double value;
    int index;
  } pair = {(double)(rank % 3), rank}, result = {-1.0, -1};
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) {
    struct {
      double value;
      int index;
    } start = {-1.0, -1};
    CHECK_MPI(MPI_Put(&start, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Accumulate(&pair, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Get(&result, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  double best = size >= 3 ? 2.0 : (double)(size - 1);
  int where = size >= 3 ? 2 : size - 1;
  if (result.value != best) fail("MPI_MAXLOC accumulated value %g, expected %g", result.value, best);
  EXPECT_INT("MPI_MAXLOC's index (the lowest of the maxima)", result.index, where);
}

/* MPI_Win_get_info reports `key` as `value`: a creation hint, or the standard's default. */
static void expect_hint(MPI_Win win, const char *key, const char *value) {
  MPI_Info used;
  char got[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  CHECK_MPI(MPI_Win_get_info(win, &used));
  CHECK_MPI(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, got, &flag));
  CHECK_MPI(MPI_Info_free(&used));
  if (!flag || strcmp(got, value) != 0) fail("hint %s: got \"%s\", expected \"%s\"", key, got, value);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  int *memory = NULL;
  MPI_Win win;
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "same_size", "true"));
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), hints, MPI_COMM_WORLD, &memory, &win));
  CHECK_MPI(MPI_Info_free(&hints));
  expect_hint(win, "same_size", "true");
  expect_hint(win, "accumulate_ordering", "rar,raw,war,waw");
  expect_hint(win, "no_locks", "false");
  for (int i = 0; i < N; ++i) memory[i] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Rank 0 computes; the others update its counter. */
  if (rank == 0) {
    volatile int *counter = memory;
    double work = 0;
    long spins = 0;
    while (*counter < size - 1) {
      for (int k = 0; k < 1000; ++k) work += k * 0.5;
      if (++spins > 2000000000L) fail("the counter stayed at %d", *counter);
    }
    if (work < 0) fail("impossible");
  } else {
    int one = 1, before = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &before, MPI_INT, 0, 0, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    if (before < 0 || before >= size - 1) fail("fetched counter value %d", before);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Errors, returned. */
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int value = 7;
  expect_class("MPI_Put outside an epoch",
               MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  expect_class("MPI_Win_unlock of a rank not locked", MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
  expect_class("MPI_Win_lock of an unknown type", MPI_Win_lock(12345, 0, 0, win),
               MPI_ERR_LOCKTYPE);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  expect_class("MPI_Put past the window's end",
               MPI_Put(&value, 1, MPI_INT, 0, N, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  int two[2] = {value, value};
  expect_class("MPI_Put straddling the window's end",
               MPI_Put(two, 2, MPI_INT, 0, N - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
  expect_class("MPI_Put at a negative displacement",
               MPI_Put(&value, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_DISP);
  expect_class("MPI_Get past the window's end",
               MPI_Get(&value, 1, MPI_INT, 0, N, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  expect_class("MPI_Put to a rank outside the group",
               MPI_Put(&value, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  MPI_Op user;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &user));
  expect_class("MPI_Accumulate with a user-defined op",
               MPI_Accumulate(&value, 1, MPI_INT, 0, 1, 1, MPI_INT, user, win), MPI_ERR_OP);
  CHECK_MPI(MPI_Op_free(&user));
  /* Still usable: the last slot, then read back. */
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == size - 1) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Put(&value, 1, MPI_INT, 0, N - 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) EXPECT_INT("the last slot after the errors", memory[N - 1], 7);
  CHECK_MPI(MPI_Win_free(&win));

  double pairs[4];
  CHECK_MPI(MPI_Win_create(pairs, sizeof pairs, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  maxloc(win, rank, size);
  CHECK_MPI(MPI_Win_free(&win));

  finalize_and_report(size);
  return 0;
}

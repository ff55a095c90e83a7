/*
 * rma.c - one-sided communication: every operation under every synchronisation mode.
 *
 * Checks, on windows of each flavour (MPI_Win_create over the program's arrays,
 * MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create_dynamic):
 *   - fence: MPI_Put of each rank's values into every rank, MPI_Get back, and MPI_Put
 *     with a strided (vector) target datatype;
 *   - MPI_Accumulate with MPI_SUM from every rank into every rank, MPI_MAX, and
 *     MPI_REPLACE; MPI_Get_accumulate and MPI_Fetch_and_op (a shared counter, whose
 *     fetched values are all different), MPI_NO_OP to read;
 *   - MPI_Compare_and_swap: exactly one rank wins a slot;
 *   - passive target: MPI_Win_lock exclusive and shared, MPI_Win_lock_all with
 *     MPI_Win_flush, MPI_Rput and MPI_Rget with MPI_Wait;
 *   - general active target: MPI_Win_post/start/complete/wait around a ring, and
 *     MPI_Win_test;
 *   - MPI_Win_allocate_shared: MPI_Win_shared_query's pointers load and store another
 *     rank's memory;
 *   - a dynamic window: MPI_Win_attach, addresses exchanged, MPI_Put to them.
 * (MPI_MAXLOC accumulates, which Open MPI's one-sided component refuses, are in
 * rma_ext.c.)
 *
 * Prints "rma: OK (N ranks)" from rank 0.
 */
#define PROGRAM "rma"
#include "check.h"

enum { N = 64 };

static int rank, size;

static void fence_put_get(MPI_Win win, int *local) {
  /* Each rank writes its rank to slot `rank` of every rank's window. */
  for (int i = 0; i < N; ++i) local[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int t = 0; t < size; ++t) {
    CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, t, rank, 1, MPI_INT, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int r = 0; r < size; ++r) EXPECT_INT("the slot MPI_Put wrote", local[r], r);
  EXPECT_INT("a slot no rank wrote", local[size], -1);

  /* Get the next rank's first `size` slots. */
  int got[N];
  int next = (rank + 1) % size;
  CHECK_MPI(MPI_Get(got, size, MPI_INT, next, 0, size, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int r = 0; r < size; ++r) EXPECT_INT("MPI_Get of the next rank's slots", got[r], r);

  /* A strided target: every other int from slot 2*size, from a contiguous origin. */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int four[4] = {rank * 10, rank * 10 + 1, rank * 10 + 2, rank * 10 + 3};
  CHECK_MPI(MPI_Put(four, 4, MPI_INT, next, 2 * size, 1, every_other, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  int prev = (rank + size - 1) % size;
  for (int k = 0; k < 4; ++k) {
    EXPECT_INT("a strided MPI_Put's element", local[2 * size + 2 * k], prev * 10 + k);
    EXPECT_INT("the gap a strided MPI_Put skipped", local[2 * size + 2 * k + 1], -1);
  }
  CHECK_MPI(MPI_Type_free(&every_other));
}

static void accumulates(MPI_Win win, int *local) {
  for (int i = 0; i < N; ++i) local[i] = 0;
  CHECK_MPI(MPI_Win_fence(0, win));
  int ones[N];
  for (int i = 0; i < N; ++i) ones[i] = rank + 1;
  for (int t = 0; t < size; ++t) {
    CHECK_MPI(MPI_Accumulate(ones, 8, MPI_INT, t, 0, 8, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&rank, 1, MPI_INT, t, 8, 1, MPI_INT, MPI_MAX, win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 8; ++i) EXPECT_INT("MPI_SUM accumulated", local[i], size * (size + 1) / 2);
  EXPECT_INT("MPI_MAX accumulated", local[8], size - 1);

  /* A shared counter at slot 16 of rank 0: every fetched value differs. */
  CHECK_MPI(MPI_Win_fence(0, win));
  int one = 1, before = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &before, MPI_INT, 0, 16, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  int *seen = xmalloc(size * sizeof(int));
  CHECK_MPI(MPI_Allgather(&before, 1, MPI_INT, seen, 1, MPI_INT, MPI_COMM_WORLD));
  for (int v = 0; v < size; ++v) {
    int count = 0;
    for (int r = 0; r < size; ++r) count += seen[r] == v;
    EXPECT_INT("ranks that fetched each counter value", count, 1);
  }
  free(seen);
  int now = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(NULL, &now, MPI_INT, 0, 16, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  EXPECT_INT("the counter read with MPI_NO_OP", now, size);

  /* Get_accumulate: swap in this rank's value at slot 20 of the next rank, one at a
   * time under an exclusive lock; MPI_REPLACE. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int next = (rank + 1) % size, mine[2] = {rank, rank}, old[2] = {-5, -5};
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  CHECK_MPI(MPI_Get_accumulate(mine, 2, MPI_INT, old, 2, MPI_INT, next, 20, 2, MPI_INT,
                               MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock(next, win));
  EXPECT_INT("MPI_Get_accumulate's old value", old[0], 0);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  int prev = (rank + size - 1) % size;
  EXPECT_INT("MPI_REPLACE's value", local[21], prev);
  CHECK_MPI(MPI_Win_unlock(rank, win));

  /* Compare_and_swap: slot 24 of rank 0 starts at -1; exactly one rank claims it. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    local[24] = -1;
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int unclaimed = -1, found = -2;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Compare_and_swap(&rank, &unclaimed, &found, MPI_INT, 0, 24, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  int owner = -2;
  CHECK_MPI(MPI_Get(&owner, 1, MPI_INT, 0, 24, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  int won = found == -1, winners = 0;
  CHECK_MPI(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_INT("ranks whose MPI_Compare_and_swap won", winners, 1);
  if (won) EXPECT_INT("the winner's value in the slot", owner, rank);
}

static void request_based(MPI_Win win, int *local) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int values[4] = {rank, rank + 1, rank + 2, rank + 3}, back[4] = {0, 0, 0, 0};
  MPI_Request requests[2];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  CHECK_MPI(MPI_Rput(values, 4, MPI_INT, next, 32, 4, MPI_INT, win, &requests[0]));
  CHECK_MPI(MPI_Wait(&requests[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Rget(back, 4, MPI_INT, next, 32, 4, MPI_INT, win, &requests[1]));
  CHECK_MPI(MPI_Wait(&requests[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_unlock(next, win));
  for (int k = 0; k < 4; ++k) EXPECT_INT("MPI_Rget of what MPI_Rput wrote", back[k], rank + k);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  for (int k = 0; k < 4; ++k) EXPECT_INT("MPI_Rput's data at the target", local[32 + k], prev + k);
}

static void post_start_complete_wait(MPI_Win win, int *local) {
  MPI_Group world, to_next, from_prev;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_incl(world, 1, &next, &to_next));
  CHECK_MPI(MPI_Group_incl(world, 1, &prev, &from_prev));
  for (int round = 0; round < 3; ++round) {
    CHECK_MPI(MPI_Win_post(from_prev, 0, win));
    CHECK_MPI(MPI_Win_start(to_next, 0, win));
    int value = rank * 100 + round;
    CHECK_MPI(MPI_Put(&value, 1, MPI_INT, next, 40, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    if (round == 2) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
    } else {
      CHECK_MPI(MPI_Win_wait(win));
    }
    EXPECT_INT("the value the previous rank put in the epoch", local[40], prev * 100 + round);
  }
  CHECK_MPI(MPI_Group_free(&to_next));
  CHECK_MPI(MPI_Group_free(&from_prev));
  CHECK_MPI(MPI_Group_free(&world));
}

static void shared_memory(void) {
  int *mine = NULL;
  MPI_Win win;
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int node_rank, node_size;
  CHECK_MPI(MPI_Comm_rank(node, &node_rank));
  CHECK_MPI(MPI_Comm_size(node, &node_size));
  CHECK_MPI(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
  int flavor_flag = 0, *flavor = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flavor_flag));
  EXPECT_INT("MPI_WIN_CREATE_FLAVOR of a shared window", *flavor, MPI_WIN_FLAVOR_SHARED);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < N; ++i) mine[i] = node_rank * 1000 + i;
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(win));
  int other = (node_rank + 1) % node_size;
  MPI_Aint bytes = 0;
  int unit = 0;
  int *theirs = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, other, &bytes, &unit, &theirs));
  EXPECT_INT("MPI_Win_shared_query's size", bytes, N * sizeof(int));
  EXPECT_INT("MPI_Win_shared_query's disp_unit", unit, sizeof(int));
  for (int i = 0; i < N; ++i) EXPECT_INT("a load of the next rank's memory", theirs[i], other * 1000 + i);
  /* Contiguous by default: the next rank's memory follows this one's. */
  if (other == node_rank + 1 && theirs != mine + N) fail("shared memory is not contiguous");
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&node));
}

static void dynamic_window(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int *region = xmalloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) region[i] = -1;
  CHECK_MPI(MPI_Win_attach(win, region, N * sizeof(int)));
  MPI_Aint mine, *addresses = xmalloc(size * sizeof(MPI_Aint));
  CHECK_MPI(MPI_Get_address(region, &mine));
  CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD));
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, next, MPI_Aint_add(addresses[next], 3 * sizeof(int)), 1,
                    MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(next, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_sync(win));
  EXPECT_INT("MPI_Put into attached memory", region[3], prev);
  EXPECT_INT("attached memory no rank wrote", region[2], -1);
  CHECK_MPI(MPI_Win_detach(win, region));
  CHECK_MPI(MPI_Win_free(&win));
  free(addresses);
  free(region);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* The program's own array (MPI_Win_create), then memory MPI allocates. */
  int array[N];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(array, sizeof array, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  fence_put_get(win, array);
  accumulates(win, array);
  request_based(win, array);
  post_start_complete_wait(win, array);
  CHECK_MPI(MPI_Win_free(&win));

  int *memory = NULL;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory,
                             &win));
  fence_put_get(win, memory);
  accumulates(win, memory);
  request_based(win, memory);
  post_start_complete_wait(win, memory);
  CHECK_MPI(MPI_Win_free(&win));

  shared_memory();
  dynamic_window();
  finalize_and_report(size);
  return 0;
}

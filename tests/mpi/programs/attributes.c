/*
 * attributes.c - what programs and benchmark suites ask of MPI besides messages.
 *
 * Checks:
 *   - MPI_Comm_get_attr: MPI_TAG_UB is set and at least 32767 (the standard's
 *     minimum), and a tag that large can be sent; MPI_HOST, MPI_IO and
 *     MPI_WTIME_IS_GLOBAL are set; MPI_UNIVERSE_SIZE, if set, is positive
 *     (weft gives the world's size; Open MPI its slots, even oversubscribed). A key that was never created is an error (weft says
 *     MPI_ERR_KEYVAL; the standard does not fix the class).
 *   - MPI_Comm_get_name gives "MPI_COMM_WORLD" and "MPI_COMM_SELF"; a name
 *     set on a dup reads back, truncated to MPI_MAX_OBJECT_NAME - 1.
 *   - MPI_Comm_test_inter is false for MPI_COMM_WORLD.
 *   - MPI_Alloc_mem gives writable memory that works as a message buffer
 *     (MPI_Allreduce into it); MPI_Free_mem takes it back.
 *   - MPI_Aint_add and MPI_Aint_diff agree with MPI_Get_address.
 *   - MPI_Pcontrol returns MPI_SUCCESS.
 *   - MPI_Request_get_status: false for a receive nothing has matched;
 *     true with the message's status once it has arrived, the request
 *     still set; MPI_Wait then frees it.
 *   - MPI_Reduce_local with MPI_SUM on ints, and with a user operation on
 *     "every other int" (an int resized to two), leaving the gaps alone.
 *
 * Prints "attributes: OK (N ranks)" from rank 0.
 */
#define PROGRAM "attributes"
#include <string.h>

#include "check.h"

static MPI_Datatype g_every_other;

static void add_every_other(void *in, void *inout, int *len, MPI_Datatype *type) {
  if (*type != g_every_other) fail("MPI_Reduce_local: the user op got another datatype");
  for (int i = 0; i < *len; ++i) ((int *)inout)[2 * i] += ((const int *)in)[2 * i];
}

static void expect_attr(int keyval, const char *name, int must_be_set, int *value) {
  int *got = NULL, flag = -1;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &got, &flag));
  if (must_be_set && !flag) fail("MPI_Comm_get_attr(%s): not set", name);
  *value = flag ? *got : -1;
}

int main(int argc, char **argv) {
  int rank, size, value;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;

  /* Attributes. */
  int tag_ub;
  expect_attr(MPI_TAG_UB, "MPI_TAG_UB", 1, &tag_ub);
  if (tag_ub < 32767) fail("MPI_TAG_UB is %d, below the standard's 32767", tag_ub);
  expect_attr(MPI_HOST, "MPI_HOST", 1, &value);
  expect_attr(MPI_IO, "MPI_IO", 1, &value);
  expect_attr(MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL", 1, &value);
  expect_attr(MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE", 0, &value);
  if (value != -1 && value < 1) fail("MPI_UNIVERSE_SIZE is %d", value);
  int out = rank, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank, tag_ub, &in, 1, MPI_INT, rank, tag_ub,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_INT("a message with tag MPI_TAG_UB", in, rank);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int *ignored, flag = -1;
  if (MPI_Comm_get_attr(MPI_COMM_WORLD, 987654, &ignored, &flag) == MPI_SUCCESS)
    fail("MPI_Comm_get_attr of a key never created succeeded");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* Names. */
  char name[MPI_MAX_OBJECT_NAME];
  int length = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &length));
  if (strcmp(name, "MPI_COMM_WORLD") != 0) fail("MPI_COMM_WORLD is named \"%s\"", name);
  EXPECT_INT("the length of MPI_COMM_WORLD's name", length, (int)strlen("MPI_COMM_WORLD"));
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &length));
  if (strcmp(name, "MPI_COMM_SELF") != 0) fail("MPI_COMM_SELF is named \"%s\"", name);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_name(dup, "solver"));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &length));
  if (strcmp(name, "solver") != 0) fail("a dup named \"solver\" reads back as \"%s\"", name);
  char long_name[MPI_MAX_OBJECT_NAME + 20];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  CHECK_MPI(MPI_Comm_set_name(dup, long_name));
  CHECK_MPI(MPI_Comm_get_name(dup, name, &length));
  EXPECT_INT("the length of a name set too long", length, MPI_MAX_OBJECT_NAME - 1);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  EXPECT_INT("MPI_Comm_test_inter(MPI_COMM_WORLD)", flag, 0);

  /* Memory and addresses. */
  enum { N = 1 << 18 };
  int *memory = NULL;
  CHECK_MPI(MPI_Alloc_mem((MPI_Aint)(N * sizeof(int)), MPI_INFO_NULL, &memory));
  for (int i = 0; i < N; ++i) memory[i] = rank + i;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, memory, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; i += 4099)
    EXPECT_INT("MPI_Allreduce in MPI_Alloc_mem memory", memory[i],
               size * (size - 1) / 2 + size * i);
  CHECK_MPI(MPI_Free_mem(memory));
  int pair[2];
  MPI_Aint first, second;
  CHECK_MPI(MPI_Get_address(&pair[0], &first));
  CHECK_MPI(MPI_Get_address(&pair[1], &second));
  EXPECT_INT("MPI_Aint_diff", (long long)MPI_Aint_diff(second, first), (long long)sizeof(int));
  EXPECT_INT("MPI_Aint_add", (long long)MPI_Aint_add(first, sizeof(int)), (long long)second);
  CHECK_MPI(MPI_Pcontrol(1));

  /* MPI_Request_get_status leaves the request as it is. */
  MPI_Request request;
  MPI_Status status;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &request));
  CHECK_MPI(MPI_Request_get_status(request, &flag, &status));
  EXPECT_INT("MPI_Request_get_status before the message is sent", flag, 0);
  out = 4242;
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, rank, 77, MPI_COMM_WORLD));
  double deadline = MPI_Wtime() + 30;
  do {
    CHECK_MPI(MPI_Request_get_status(request, &flag, &status));
  } while (!flag && MPI_Wtime() < deadline);
  EXPECT_INT("MPI_Request_get_status once the message is there", flag, 1);
  if (request == MPI_REQUEST_NULL) fail("MPI_Request_get_status freed the request");
  expect_status("MPI_Request_get_status", &status, rank, 77, MPI_INT, 1);
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  EXPECT_INT("the message MPI_Request_get_status saw", in, 4242);

  /* MPI_Reduce_local. */
  int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  CHECK_MPI(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM));
  for (int i = 0; i < 3; ++i) EXPECT_INT("MPI_Reduce_local MPI_SUM", b[i], 11 * (i + 1));
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &g_every_other));
  CHECK_MPI(MPI_Type_commit(&g_every_other));
  MPI_Op add;
  CHECK_MPI(MPI_Op_create(add_every_other, 1, &add));
  int x[6] = {1, -1, 2, -1, 3, -1}, y[6] = {5, -9, 6, -9, 7, -9};
  CHECK_MPI(MPI_Reduce_local(x, y, 3, g_every_other, add));
  for (int i = 0; i < 3; ++i) {
    EXPECT_INT("MPI_Reduce_local over every other int", y[2 * i], 6 + 2 * i);
    EXPECT_INT("MPI_Reduce_local: a gap", y[2 * i + 1], -9);
  }
  CHECK_MPI(MPI_Op_free(&add));
  CHECK_MPI(MPI_Type_free(&g_every_other));

  finalize_and_report(size);
  return 0;
}

/*
 * errhandler.c - error handlers, error classes and error strings.
 *
 * Checks:
 *   - MPI_COMM_WORLD starts with MPI_ERRORS_ARE_FATAL; after
 *     MPI_Comm_set_errhandler(MPI_ERRORS_RETURN), MPI_Comm_get_errhandler
 *     returns MPI_ERRORS_RETURN.
 *   - MPI_Error_class(MPI_SUCCESS) is MPI_SUCCESS; the MPI-1 error classes
 *     are distinct and positive, MPI_Error_class maps each class to itself,
 *     and MPI_Error_string gives each (and MPI_SUCCESS) a non-empty string of
 *     length resultlen < MPI_MAX_ERROR_STRING.
 *   - With MPI_ERRORS_RETURN, these erroneous calls return (rather than
 *     abort) an error code of the given class, each with a non-empty
 *     MPI_Error_string:
 *       MPI_Send to rank `size`, to MPI_ANY_SOURCE        -> MPI_ERR_RANK
 *       MPI_Recv from rank `size`                         -> MPI_ERR_RANK
 *       MPI_Isend to rank `size` (from MPI_Isend itself,
 *         or else from the MPI_Wait that completes it)    -> MPI_ERR_RANK
 *       MPI_Send with count -1                            -> MPI_ERR_COUNT
 *       MPI_Send with tag -7                              -> MPI_ERR_TAG
 *       MPI_Bcast with root -5 and with root `size`       -> MPI_ERR_ROOT
 *       MPI_Reduce with root -5                           -> MPI_ERR_ROOT
 *   - Communicators made by MPI_Comm_dup and MPI_Comm_split inherit
 *     MPI_ERRORS_RETURN (get_errhandler, and an invalid send returns
 *     MPI_ERR_RANK on them); setting MPI_ERRORS_ARE_FATAL on the dup is
 *     reported back by get_errhandler and leaves MPI_COMM_WORLD's alone.
 *   - A handler of the program's own (MPI_Comm_create_errhandler) on a dup:
 *     an MPI_Send to rank `size` calls it once, with the dup and an error
 *     code of class MPI_ERR_RANK, and the send then returns that code;
 *     MPI_Comm_call_errhandler calls it with the code given and returns
 *     MPI_SUCCESS; MPI_Errhandler_free sets the handle to
 *     MPI_ERRHANDLER_NULL and the dup keeps its handler.
 *   - After all that the program carries on: MPI_Allreduce and a
 *     MPI_Sendrecv ring on MPI_COMM_WORLD give the right values, and
 *     MPI_ERRORS_ARE_FATAL can be set back.
 *
 * Prints "errhandler: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "errhandler"
#include "check.h"

static int rank, size;

struct cls {
  const char *name;
  int value;
};

#define NCLASSES 17
static struct cls classes[NCLASSES];

static void add_class(int *n, const char *name, int value) {
  if (*n >= NCLASSES) fail("internal: more than %d error classes listed", NCLASSES);
  classes[*n].name = name;
  classes[*n].value = value;
  (*n)++;
}

static void init_classes(void) {
  int n = 0;
#define C(X) add_class(&n, #X, X)
  C(MPI_ERR_BUFFER);
  C(MPI_ERR_COUNT);
  C(MPI_ERR_TYPE);
  C(MPI_ERR_TAG);
  C(MPI_ERR_COMM);
  C(MPI_ERR_RANK);
  C(MPI_ERR_REQUEST);
  C(MPI_ERR_ROOT);
  C(MPI_ERR_GROUP);
  C(MPI_ERR_OP);
  C(MPI_ERR_ARG);
  C(MPI_ERR_UNKNOWN);
  C(MPI_ERR_TRUNCATE);
  C(MPI_ERR_OTHER);
  C(MPI_ERR_INTERN);
  C(MPI_ERR_IN_STATUS);
  C(MPI_ERR_PENDING);
#undef C
  if (n != NCLASSES) fail("internal: %d error classes listed, expected %d", n, NCLASSES);
}

static const char *class_name(int c) {
  int i;
  if (c == MPI_SUCCESS) return "MPI_SUCCESS";
  for (i = 0; i < NCLASSES; i++)
    if (classes[i].value == c) return classes[i].name;
  return "an unlisted class";
}

static void check_string(int code, const char *what) {
  char s[MPI_MAX_ERROR_STRING];
  int len = -1;
  memset(s, 'X', sizeof s);
  CHECK_MPI(MPI_Error_string(code, s, &len));
  if (len <= 0 || len >= MPI_MAX_ERROR_STRING)
    fail("MPI_Error_string(%s = %d) resultlen: got %d, expected 1..%d", what, code, len,
         MPI_MAX_ERROR_STRING - 1);
  if (memchr(s, '\0', sizeof s) == NULL)
    fail("MPI_Error_string(%s = %d): string not NUL-terminated", what, code);
  if ((int)strlen(s) != len)
    fail("MPI_Error_string(%s = %d): strlen got %d, expected resultlen %d", what, code,
         (int)strlen(s), len);
}

/* rc must be an error of class `exp`. */
static void expect_error(int rc, int exp, const char *what) {
  int c = -12345;
  if (rc == MPI_SUCCESS)
    fail("%s: got MPI_SUCCESS, expected an error of class %s (%d)", what, class_name(exp), exp);
  CHECK_MPI(MPI_Error_class(rc, &c));
  if (c != exp)
    fail("%s: error class got %d (%s), expected %d (%s)", what, c, class_name(c), exp,
         class_name(exp));
  check_string(rc, what);
}

static void expect_handler(MPI_Comm comm, MPI_Errhandler exp, const char *what) {
  MPI_Errhandler h;
  CHECK_MPI(MPI_Comm_get_errhandler(comm, &h));
  if (h != exp)
    fail("MPI_Comm_get_errhandler(%s): got a different handler than %s", what,
         exp == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "MPI_ERRORS_ARE_FATAL");
}

static void error_classes(void) {
  int i, j, c = -12345;
  CHECK_MPI(MPI_Error_class(MPI_SUCCESS, &c));
  EXPECT_INT("MPI_Error_class(MPI_SUCCESS)", c, MPI_SUCCESS);
  check_string(MPI_SUCCESS, "MPI_SUCCESS");
  for (i = 0; i < NCLASSES; i++) {
    char what[100];
    if (classes[i].value <= MPI_SUCCESS)
      fail("%s: got %d, expected > MPI_SUCCESS (%d)", classes[i].name, classes[i].value,
           MPI_SUCCESS);
    for (j = 0; j < i; j++)
      if (classes[j].value == classes[i].value)
        fail("%s and %s: both %d, expected distinct classes", classes[j].name, classes[i].name,
             classes[i].value);
    c = -12345;
    CHECK_MPI(MPI_Error_class(classes[i].value, &c));
    snprintf(what, sizeof what, "MPI_Error_class(%s)", classes[i].name);
    EXPECT_INT(what, c, classes[i].value);
    check_string(classes[i].value, classes[i].name);
  }
}

static void erroneous_calls(MPI_Comm comm, const char *cname) {
  int buf[4] = {1, 2, 3, 4};
  int csize = -1, crank = -1, rc;
  char what[200];
  MPI_Request req = MPI_REQUEST_NULL;

  CHECK_MPI(MPI_Comm_size(comm, &csize));
  CHECK_MPI(MPI_Comm_rank(comm, &crank));

#define TRY(CALL, CLASS)                                   \
  do {                                                     \
    snprintf(what, sizeof what, "%s on %s", #CALL, cname); \
    expect_error((CALL), (CLASS), what);                   \
  } while (0)

  TRY(MPI_Send(buf, 1, MPI_INT, csize, 0, comm), MPI_ERR_RANK);
  TRY(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm), MPI_ERR_RANK);
  TRY(MPI_Recv(buf, 1, MPI_INT, csize, 0, comm, MPI_STATUS_IGNORE), MPI_ERR_RANK);
  TRY(MPI_Send(buf, -1, MPI_INT, crank, 0, comm), MPI_ERR_COUNT);
  TRY(MPI_Send(buf, 1, MPI_INT, crank, -7, comm), MPI_ERR_TAG);
  TRY(MPI_Bcast(buf, 1, MPI_INT, -5, comm), MPI_ERR_ROOT);
  TRY(MPI_Bcast(buf, 1, MPI_INT, csize, comm), MPI_ERR_ROOT);
  TRY(MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_SUM, -5, comm), MPI_ERR_ROOT);
#undef TRY

  /* The error of a non-blocking send may come from the call or from its
   * completion. */
  rc = MPI_Isend(buf, 1, MPI_INT, csize, 0, comm, &req);
  snprintf(what, sizeof what, "MPI_Isend to rank %d on %s", csize, cname);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    strncat(what, " (reported by MPI_Wait)", sizeof what - strlen(what) - 1);
  }
  expect_error(rc, MPI_ERR_RANK, what);
}

static int g_handler_calls, g_handler_code;
static MPI_Comm g_handler_comm;

static void count_errors(MPI_Comm *comm, int *code, ...) {
  ++g_handler_calls;
  g_handler_code = *code;
  g_handler_comm = *comm;
}

static void user_handler(void) {
  MPI_Comm dup;
  MPI_Errhandler handler;
  int rc, cls = -1, payload = 1;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &handler));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, handler));
  rc = MPI_Send(&payload, 1, MPI_INT, size, 0, dup);
  EXPECT_INT("user handler: calls after one failed send", g_handler_calls, 1);
  CHECK_MPI(MPI_Error_class(g_handler_code, &cls));
  EXPECT_INT("user handler: the class of the code it was given", cls, MPI_ERR_RANK);
  EXPECT_INT("user handler: the failed send returned the code", rc, g_handler_code);
  if (g_handler_comm != dup) fail("user handler: not given the communicator of the failed call");
  CHECK_MPI(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
  EXPECT_INT("user handler: calls after MPI_Comm_call_errhandler", g_handler_calls, 2);
  EXPECT_INT("user handler: the code MPI_Comm_call_errhandler passed", g_handler_code,
             MPI_ERR_OTHER);
  CHECK_MPI(MPI_Errhandler_free(&handler));
  if (handler != MPI_ERRHANDLER_NULL) fail("MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");
  rc = MPI_Send(&payload, 1, MPI_INT, size, 0, dup);
  EXPECT_INT("user handler: calls after it was freed and another send failed", g_handler_calls, 3);
  CHECK_MPI(MPI_Comm_free(&dup));
}

int main(int argc, char **argv) {
  MPI_Comm dup, split;
  int got, i;

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  init_classes();

  expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD at start-up");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  expect_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
                 "MPI_COMM_WORLD after setting MPI_ERRORS_RETURN");

  error_classes();
  erroneous_calls(MPI_COMM_WORLD, "MPI_COMM_WORLD");

  /* Inheritance. */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  expect_handler(dup, MPI_ERRORS_RETURN, "dup of MPI_COMM_WORLD");
  erroneous_calls(dup, "dup of MPI_COMM_WORLD");
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split));
  expect_handler(split, MPI_ERRORS_RETURN, "split of MPI_COMM_WORLD");
  erroneous_calls(split, "parity split of MPI_COMM_WORLD");

  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL));
  expect_handler(dup, MPI_ERRORS_ARE_FATAL, "dup after setting it fatal");
  expect_handler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD after setting its dup fatal");
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&split));
  user_handler();

  /* Still in working order. */
  got = -1;
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_INT("MPI_Allreduce after the errors", got, size * (size - 1) / 2);
  for (i = 0; i < 3; i++) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out = rank * 100 + i, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, i, &in, 1, MPI_INT, prev, i, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    EXPECT_INT("MPI_Sendrecv after the errors", in, prev * 100 + i);
  }

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  expect_handler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
                 "MPI_COMM_WORLD after setting MPI_ERRORS_ARE_FATAL back");

  finalize_and_report(size);
  return 0;
}

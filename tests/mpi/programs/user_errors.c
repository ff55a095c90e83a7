/*
 * user_errors.c - the program's own error classes, codes and strings.
 *
 * Checks:
 *   - MPI_Add_error_class gives a class above MPI_ERR_LASTCODE, which MPI_LASTUSEDCODE
 *     then reports; its string is "" until MPI_Add_error_string sets one.
 *   - MPI_Add_error_code gives codes whose MPI_Error_class is their class and whose
 *     strings are their own; a code cannot get a class that is not one.
 *   - A user error handler sees a user code raised with MPI_Comm_call_errhandler.
 *   - MPI_Remove_error_class fails while the class has codes or a string;
 *     MPI_Remove_error_code fails while the code has a string; removing the string and
 *     then the code works, and a removed code is an error.
 *   - The standard's classes keep their class and a nonempty string.
 *
 * Prints "user_errors: OK (N ranks)" from rank 0.
 */
#define PROGRAM "user_errors"
#include <string.h>

#include "check.h"

static int g_seen_code = 0;

static void record(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  g_seen_code = *code;
}

static void expect_string(int code, const char *expected) {
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  if (strcmp(text, expected) != 0)
    fail("string of %d: got \"%s\", expected \"%s\"", code, text, expected);
  EXPECT_INT("string length", len, (int)strlen(expected));
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int errclass, code1, code2, cls, flag, *last;
  CHECK_MPI(MPI_Add_error_class(&errclass));
  if (errclass <= MPI_ERR_LASTCODE) fail("class %d is not above MPI_ERR_LASTCODE", errclass);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  EXPECT_INT("MPI_LASTUSEDCODE set", flag, 1);
  EXPECT_INT("MPI_LASTUSEDCODE", *last, errclass);
  expect_string(errclass, "");
  CHECK_MPI(MPI_Add_error_string(errclass, "my class"));
  expect_string(errclass, "my class");
  CHECK_MPI(MPI_Error_class(errclass, &cls));
  EXPECT_INT("class of the class", cls, errclass);

  CHECK_MPI(MPI_Add_error_code(errclass, &code1));
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &code2));
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  EXPECT_INT("MPI_LASTUSEDCODE after two codes", *last, code2);
  CHECK_MPI(MPI_Error_class(code1, &cls));
  EXPECT_INT("class of code 1", cls, errclass);
  CHECK_MPI(MPI_Error_class(code2, &cls));
  EXPECT_INT("class of code 2", cls, MPI_ERR_OTHER);
  expect_string(code1, "");
  CHECK_MPI(MPI_Add_error_string(code1, "my code"));
  expect_string(code1, "my code");
  int bad;
  if (MPI_Add_error_code(code1, &bad) == MPI_SUCCESS) fail("a code became a class");
  if (MPI_Add_error_string(MPI_ERR_RANK, "no") == MPI_SUCCESS) fail("a standard string changed");

  MPI_Errhandler handler;
  CHECK_MPI(MPI_Comm_create_errhandler(record, &handler));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler));
  CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code1));
  EXPECT_INT("code the handler saw", g_seen_code, code1);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&handler));

  if (MPI_Remove_error_class(errclass) == MPI_SUCCESS) fail("removed a class with codes");
  if (MPI_Remove_error_code(code1) == MPI_SUCCESS) fail("removed a code with a string");
  CHECK_MPI(MPI_Remove_error_string(code1));
  expect_string(code1, "");
  CHECK_MPI(MPI_Remove_error_code(code1));
  if (MPI_Remove_error_code(code1) == MPI_SUCCESS) fail("removed a code twice");
  CHECK_MPI(MPI_Remove_error_string(errclass));
  CHECK_MPI(MPI_Remove_error_class(errclass));
  CHECK_MPI(MPI_Remove_error_code(code2));

  int classes[] = {MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_KEYVAL, MPI_ERR_INFO_NOKEY, MPI_ERR_WIN};
  for (int i = 0; i < 5; ++i) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK_MPI(MPI_Error_class(classes[i], &cls));
    EXPECT_INT("class of a standard class", cls, classes[i]);
    CHECK_MPI(MPI_Error_string(classes[i], text, &len));
    if (len == 0) fail("class %d has no string", classes[i]);
  }

  finalize_and_report(size);
  return 0;
}

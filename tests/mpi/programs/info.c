/*
 * info.c - info objects and the calls that answer with one.
 *
 * Checks:
 *   - MPI_Info_set/get_nkeys/get_nthkey keep keys in the order first set; setting a
 *     key again replaces its value; MPI_Info_get_string, _get_valuelen and MPI_Info_get
 *     read values back (truncated to the buffer, buflen reporting the full length + 1);
 *     MPI_Info_delete removes a key and fails with MPI_ERR_INFO_NOKEY for a missing one.
 *   - MPI_Info_dup copies, independently of the original; MPI_Info_free sets
 *     MPI_INFO_NULL.
 *   - Keys longer than MPI_MAX_INFO_KEY - 1 fail with MPI_ERR_INFO_KEY, values longer
 *     than MPI_MAX_INFO_VAL - 1 with MPI_ERR_INFO_VALUE; MPI_INFO_NULL is MPI_ERR_INFO.
 *   - MPI_INFO_ENV is readable and duplicable; MPI_Info_create_env gives "command".
 *   - MPI_Comm_set_info/get_info keep the hints; MPI_Abi_get_info gives the sizes of
 *     MPI_Aint, MPI_Count and MPI_Offset; MPI_Abi_get_fortran_info is MPI_INFO_NULL.
 *
 * Prints "info: OK (N ranks)" from rank 0.
 */
#define PROGRAM "info"
#include <string.h>

#include "check.h"

static void expect_value(MPI_Info info, const char *key, const char *expected) {
  char value[MPI_MAX_INFO_VAL];
  int buflen = MPI_MAX_INFO_VAL, flag = 0;
  CHECK_MPI(MPI_Info_get_string(info, key, &buflen, value, &flag));
  if (!flag) fail("key %s: not found", key);
  if (strcmp(value, expected) != 0)
    fail("key %s: got \"%s\", expected \"%s\"", key, value, expected);
  EXPECT_INT("buflen", buflen, (int)strlen(expected) + 1);
}

static void expect_size(MPI_Info info, const char *key, MPI_Datatype type) {
  char value[MPI_MAX_INFO_VAL];
  int buflen = MPI_MAX_INFO_VAL, flag = 0, size = 0;
  CHECK_MPI(MPI_Info_get_string(info, key, &buflen, value, &flag));
  if (!flag) fail("MPI_Abi_get_info: no %s", key);
  CHECK_MPI(MPI_Type_size(type, &size));
  EXPECT_INT(key, atoi(value), size);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Info info, dup;
  int nkeys, flag, len;
  char key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  EXPECT_INT("nkeys of a new info", nkeys, 0);
  CHECK_MPI(MPI_Info_set(info, "b_key", "first"));
  CHECK_MPI(MPI_Info_set(info, "a_key", "second value"));
  CHECK_MPI(MPI_Info_set(info, "b_key", "replaced"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  EXPECT_INT("nkeys", nkeys, 2);
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
  if (strcmp(key, "b_key") != 0) fail("key 0: got %s, expected b_key", key);
  CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
  if (strcmp(key, "a_key") != 0) fail("key 1: got %s, expected a_key", key);
  EXPECT_INT("MPI_Info_get_nthkey out of range", MPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);
  expect_value(info, "b_key", "replaced");
  expect_value(info, "a_key", "second value");
  CHECK_MPI(MPI_Info_get_valuelen(info, "a_key", &len, &flag));
  EXPECT_INT("valuelen flag", flag, 1);
  EXPECT_INT("valuelen", len, 12);
  CHECK_MPI(MPI_Info_get_valuelen(info, "missing", &len, &flag));
  EXPECT_INT("valuelen flag of a missing key", flag, 0);
  /* A short buffer: truncated, buflen says what the whole value needs. */
  int buflen = 4;
  CHECK_MPI(MPI_Info_get_string(info, "a_key", &buflen, value, &flag));
  if (strcmp(value, "sec") != 0) fail("truncated value: got \"%s\"", value);
  EXPECT_INT("buflen after truncation", buflen, 13);
  CHECK_MPI(MPI_Info_get(info, "a_key", 6, value, &flag));
  if (!flag || strcmp(value, "second") != 0) fail("MPI_Info_get: got \"%s\"", value);

  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK_MPI(MPI_Info_delete(info, "b_key"));
  EXPECT_INT("delete of a missing key", MPI_Info_delete(info, "b_key"), MPI_ERR_INFO_NOKEY);
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  EXPECT_INT("nkeys after delete", nkeys, 1);
  CHECK_MPI(MPI_Info_get_nkeys(dup, &nkeys));
  EXPECT_INT("nkeys of the dup", nkeys, 2);
  expect_value(dup, "b_key", "replaced");

  char long_key[MPI_MAX_INFO_KEY + 1];
  memset(long_key, 'k', MPI_MAX_INFO_KEY);
  long_key[MPI_MAX_INFO_KEY] = '\0';
  EXPECT_INT("a key too long", MPI_Info_set(info, long_key, "v"), MPI_ERR_INFO_KEY);
  long_key[MPI_MAX_INFO_KEY - 1] = '\0';
  CHECK_MPI(MPI_Info_set(info, long_key, "v"));
  static char long_value[MPI_MAX_INFO_VAL + 1];
  memset(long_value, 'v', MPI_MAX_INFO_VAL);
  long_value[MPI_MAX_INFO_VAL] = '\0';
  EXPECT_INT("a value too long", MPI_Info_set(info, "k", long_value), MPI_ERR_INFO_VALUE);
  EXPECT_INT("MPI_INFO_NULL", MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_INFO);

  CHECK_MPI(MPI_Info_free(&dup));
  if (dup != MPI_INFO_NULL) fail("MPI_Info_free did not set MPI_INFO_NULL");

  /* MPI_INFO_ENV: readable, duplicable, read-only. */
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
  CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &dup));
  int dup_keys;
  CHECK_MPI(MPI_Info_get_nkeys(dup, &dup_keys));
  EXPECT_INT("keys of MPI_INFO_ENV's dup", dup_keys, nkeys);
  CHECK_MPI(MPI_Info_free(&dup));
  if (MPI_Info_free(&dup) == MPI_SUCCESS) fail("freeing MPI_INFO_NULL succeeded");
  char *args[] = {"prog", "one", "two", NULL};
  CHECK_MPI(MPI_Info_create_env(3, args, &dup));
  expect_value(dup, "command", "prog");
  expect_value(dup, "argv", "one two");
  CHECK_MPI(MPI_Info_free(&dup));

  /* Communicator hints. */
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_info(comm, info));
  CHECK_MPI(MPI_Comm_get_info(comm, &dup));
  expect_value(dup, "a_key", "second value");
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Info_free(&info));

  CHECK_MPI(MPI_Abi_get_info(&info));
  expect_size(info, "mpi_aint_size", MPI_AINT);
  expect_size(info, "mpi_count_size", MPI_COUNT);
  expect_size(info, "mpi_offset_size", MPI_OFFSET);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Abi_get_fortran_info(&info));
  if (info != MPI_INFO_NULL) fail("MPI_Abi_get_fortran_info: expected MPI_INFO_NULL");
  int is_set = 1, t = 1, f = 0;
  CHECK_MPI(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
  EXPECT_INT("Fortran booleans set before MPI_Abi_set_fortran_booleans", is_set, 0);
  CHECK_MPI(MPI_Get_hw_resource_info(&info));
  CHECK_MPI(MPI_Info_free(&info));

  finalize_and_report(size);
  return 0;
}

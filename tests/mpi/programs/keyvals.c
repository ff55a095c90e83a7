/*
 * keyvals.c - attribute caching on communicators, datatypes and windows.
 *
 * Checks:
 *   - A communicator keyval with a counting copy callback and a recording delete
 *     callback: MPI_Comm_dup calls the copy callback, which doubles the value on the
 *     duplicate; MPI_Comm_set_attr over a value and MPI_Comm_delete_attr call the
 *     delete callback with the old value; MPI_Comm_free deletes what is left.
 *   - MPI_COMM_DUP_FN copies the value itself, MPI_COMM_NULL_COPY_FN nothing.
 *   - A freed keyval keeps working for the attributes already set under it.
 *   - The same for datatypes (MPI_Type_dup copies, MPI_Type_free deletes) and for
 *     windows (MPI_Win_free deletes); the predefined window attributes MPI_WIN_BASE,
 *     MPI_WIN_SIZE, MPI_WIN_DISP_UNIT and MPI_WIN_CREATE_FLAVOR; MPI_Win_set_name
 *     and MPI_Win_get_group.
 *   - MPI_COMM_SELF's attributes are deleted first at MPI_Finalize.
 *
 * Prints "keyvals: OK (N ranks)" from rank 0.
 */
#define PROGRAM "keyvals"
#include <string.h>

#include "check.h"

static int g_copies = 0;
static int g_deleted_sum = 0;
static int g_deletes = 0;
static int g_self_deleted = 0;

static int copy_doubling(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval;
  EXPECT_INT("extra_state", *(int *)extra, 42);
  ++g_copies;
  *(void **)out = (void *)((intptr_t)in * 2);
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_recording(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  ++g_deletes;
  g_deleted_sum += (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)type, (void)keyval, (void)extra;
  *(void **)out = (void *)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
  (void)type, (void)keyval, (void)extra;
  ++g_deletes;
  g_deleted_sum += (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static int win_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win, (void)keyval, (void)extra;
  ++g_deletes;
  g_deleted_sum += (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (finalized) fail("MPI_COMM_SELF's attribute deleted after MPI_Finalize");
  ++g_self_deleted;
  return MPI_SUCCESS;
}

static intptr_t get(MPI_Comm comm, int keyval, int *flag) {
  void *value = NULL;
  CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &value, flag));
  return (intptr_t)value;
}

int main(int argc, char **argv) {
  int size, flag, extra = 42;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int key, dup_key, null_key;
  CHECK_MPI(MPI_Comm_create_keyval(copy_doubling, delete_recording, &key, &extra));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_key, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_recording, &null_key, NULL));
  MPI_Comm comm, copy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  get(comm, key, &flag);
  EXPECT_INT("flag before set", flag, 0);
  CHECK_MPI(MPI_Comm_set_attr(comm, key, (void *)(intptr_t)5));
  CHECK_MPI(MPI_Comm_set_attr(comm, key, (void *)(intptr_t)7));
  EXPECT_INT("deletes after replacing", g_deletes, 1);
  EXPECT_INT("deleted value", g_deleted_sum, 5);
  EXPECT_INT("value", get(comm, key, &flag), 7);
  EXPECT_INT("flag", flag, 1);
  CHECK_MPI(MPI_Comm_set_attr(comm, dup_key, (void *)(intptr_t)11));
  CHECK_MPI(MPI_Comm_set_attr(comm, null_key, (void *)(intptr_t)100));

  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  EXPECT_INT("copy callbacks", g_copies, 1);
  EXPECT_INT("copied value", get(copy, key, &flag), 14);
  EXPECT_INT("MPI_COMM_DUP_FN's value", get(copy, dup_key, &flag), 11);
  EXPECT_INT("MPI_COMM_DUP_FN's flag", flag, 1);
  get(copy, null_key, &flag);
  EXPECT_INT("MPI_COMM_NULL_COPY_FN's flag", flag, 0);

  /* A freed keyval still serves the attributes under it. */
  int freed_key = key;
  CHECK_MPI(MPI_Comm_free_keyval(&freed_key));
  EXPECT_INT("freed keyval", freed_key, MPI_KEYVAL_INVALID);
  g_deletes = g_deleted_sum = 0;
  CHECK_MPI(MPI_Comm_free(&copy));
  EXPECT_INT("deletes at the copy's free", g_deletes, 1);
  EXPECT_INT("deleted value on the copy", g_deleted_sum, 14);
  CHECK_MPI(MPI_Comm_delete_attr(comm, null_key));
  if (MPI_Comm_delete_attr(comm, null_key) == MPI_SUCCESS) fail("deleted an attribute twice");
  CHECK_MPI(MPI_Comm_free(&comm));
  EXPECT_INT("deletes at free", g_deletes, 3); /* null_key's, then key's under comm */
  EXPECT_INT("values deleted at free", g_deleted_sum, 14 + 7 + 100);
  CHECK_MPI(MPI_Comm_free_keyval(&dup_key));
  CHECK_MPI(MPI_Comm_free_keyval(&null_key));
  if (MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL) == MPI_SUCCESS) {
    fail("MPI_TAG_UB was set");
  }

  /* Datatypes. */
  int type_key;
  MPI_Datatype type, type_copy_;
  CHECK_MPI(MPI_Type_create_keyval(type_copy, type_delete, &type_key, NULL));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &type));
  CHECK_MPI(MPI_Type_set_attr(type, type_key, (void *)(intptr_t)20));
  CHECK_MPI(MPI_Type_dup(type, &type_copy_));
  void *value = NULL;
  CHECK_MPI(MPI_Type_get_attr(type_copy_, type_key, &value, &flag));
  EXPECT_INT("type attribute flag", flag, 1);
  EXPECT_INT("copied type attribute", (intptr_t)value, 21);
  g_deletes = g_deleted_sum = 0;
  CHECK_MPI(MPI_Type_free(&type_copy_));
  CHECK_MPI(MPI_Type_free(&type));
  EXPECT_INT("type attributes deleted", g_deleted_sum, 41);
  CHECK_MPI(MPI_Type_set_attr(MPI_INT, type_key, (void *)(intptr_t)3));
  CHECK_MPI(MPI_Type_delete_attr(MPI_INT, type_key));
  EXPECT_INT("MPI_INT's attribute deleted", g_deleted_sum, 44);
  CHECK_MPI(MPI_Type_free_keyval(&type_key));

  /* Windows. */
  int win_key, buffer[4];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &win_key, NULL));
  CHECK_MPI(
      MPI_Win_create(buffer, sizeof buffer, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_attr(win, win_key, (void *)(intptr_t)9));
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &value, &flag));
  if (!flag || value != buffer) fail("MPI_WIN_BASE is not the buffer");
  MPI_Aint *win_size;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &win_size, &flag));
  EXPECT_INT("MPI_WIN_SIZE", *win_size, (int)sizeof buffer);
  int *int_value;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &int_value, &flag));
  EXPECT_INT("MPI_WIN_DISP_UNIT", *int_value, (int)sizeof(int));
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &int_value, &flag));
  EXPECT_INT("MPI_WIN_CREATE_FLAVOR", *int_value, MPI_WIN_FLAVOR_CREATE);
  CHECK_MPI(MPI_Win_set_name(win, "my window"));
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  if (strcmp(name, "my window") != 0) fail("window name: got \"%s\"", name);
  MPI_Group group;
  int group_size;
  CHECK_MPI(MPI_Win_get_group(win, &group));
  CHECK_MPI(MPI_Group_size(group, &group_size));
  EXPECT_INT("window group size", group_size, size);
  CHECK_MPI(MPI_Group_free(&group));
  g_deletes = g_deleted_sum = 0;
  CHECK_MPI(MPI_Win_free(&win));
  EXPECT_INT("window attribute deleted", g_deleted_sum, 9);
  CHECK_MPI(MPI_Win_free_keyval(&win_key));

  /* MPI_COMM_SELF's attributes go first at MPI_Finalize. */
  int self_key;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL));
  finalize_and_report(size);
  if (g_self_deleted != 1) {
    fprintf(stderr, "keyvals: MPI_COMM_SELF's attribute was not deleted at MPI_Finalize\n");
    return 1;
  }
  return 0;
}

/*
 * tool_interface.c - the MPI_T tool interface's life cycle and enumerations.
 *
 * Checks:
 *   - Before MPI_T_init_thread every call is MPI_T_ERR_NOT_INITIALIZED.
 *   - MPI_T_init_thread is reference counted: two inits need two MPI_T_finalize calls,
 *     and a third finalize fails; it works before MPI_Init and after MPI_Finalize.
 *   - The enumerations agree with themselves: for every index below a get_num count,
 *     get_info works; the count itself is out of range (MPI_T_ERR_INVALID_INDEX), as
 *     is -1; an unknown name is MPI_T_ERR_INVALID_NAME.
 *   - A performance variable session can be created, all its handles started and
 *     stopped, and freed; a bad session is MPI_T_ERR_INVALID_SESSION.
 *
 * Prints "tool_interface: OK (N ranks)" from rank 0.
 */
#define PROGRAM "tool_interface"
#include "check.h"

int main(int argc, char **argv) {
  int size, provided, num, index;
  EXPECT_INT("MPI_T_cvar_get_num before init", MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
  EXPECT_INT("MPI_T_finalize before init", MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));

  char name[256], desc[256];
  int name_len, desc_len, verbosity, bind, scope, var_class, readonly, continuous, atomic;
  MPI_Datatype type;
  MPI_T_enum enumtype;
  CHECK_MPI(MPI_T_cvar_get_num(&num));
  for (int i = 0; i < num; ++i) {
    name_len = desc_len = 256;
    CHECK_MPI(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len,
                                  &bind, &scope));
  }
  name_len = desc_len = 256;
  EXPECT_INT("cvar past the end",
             MPI_T_cvar_get_info(num, name, &name_len, &verbosity, &type, &enumtype, desc,
                                 &desc_len, &bind, &scope),
             MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_pvar_get_num(&num));
  name_len = desc_len = 256;
  EXPECT_INT("pvar past the end",
             MPI_T_pvar_get_info(num, name, &name_len, &verbosity, &var_class, &type, &enumtype,
                                 desc, &desc_len, &bind, &readonly, &continuous, &atomic),
             MPI_T_ERR_INVALID_INDEX);
  int ncvars, npvars, ncats;
  CHECK_MPI(MPI_T_category_get_num(&num));
  name_len = desc_len = 256;
  EXPECT_INT(
      "category -1",
      MPI_T_category_get_info(-1, name, &name_len, desc, &desc_len, &ncvars, &npvars, &ncats),
      MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_source_get_num(&num));
  MPI_Count timestamp;
  EXPECT_INT("source past the end", MPI_T_source_get_timestamp(num, &timestamp),
             MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_event_get_num(&num));
  EXPECT_INT("unknown cvar name", MPI_T_cvar_get_index("no such variable", &index),
             MPI_T_ERR_INVALID_NAME);
  EXPECT_INT("unknown pvar name",
             MPI_T_pvar_get_index("no such variable", MPI_T_PVAR_CLASS_COUNTER, &index),
             MPI_T_ERR_INVALID_NAME);
  EXPECT_INT("unknown category name", MPI_T_category_get_index("no such category", &index),
             MPI_T_ERR_INVALID_NAME);
  EXPECT_INT("unknown event name", MPI_T_event_get_index("no such event", &index),
             MPI_T_ERR_INVALID_NAME);
  int stamp;
  CHECK_MPI(MPI_T_category_changed(&stamp));

  MPI_T_pvar_session session;
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  CHECK_MPI(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
  CHECK_MPI(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));
  CHECK_MPI(MPI_T_pvar_session_free(&session));
  if (session != MPI_T_PVAR_SESSION_NULL) fail("the freed session is not MPI_T_PVAR_SESSION_NULL");
  EXPECT_INT("a freed session", MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES),
             MPI_T_ERR_INVALID_SESSION);

  CHECK_MPI(MPI_T_finalize());
  CHECK_MPI(MPI_T_cvar_get_num(&num)); /* one initialisation is left */
  finalize_and_report(size);
  CHECK_MPI(MPI_T_cvar_get_num(&num));
  CHECK_MPI(MPI_T_finalize());
  EXPECT_INT("finalize once too often", MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  return 0;
}

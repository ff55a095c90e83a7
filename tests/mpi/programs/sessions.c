/*
 * sessions.c - the MPI-4 sessions model, without MPI_Init.
 *
 * Checks:
 *   1. MPI_Session_init (MPI_ERRORS_RETURN); two process sets, "mpi://WORLD" and
 *      "mpi://SELF" (MPI_Session_get_nth_pset with pset_len 0 gives the length,
 *      NUL included).
 *   2. MPI_Group_from_session_pset("mpi://WORLD") and MPI_Comm_create_from_group:
 *      a communicator of every process, rank = world rank; MPI_Allreduce(SUM) of
 *      the ranks and a ring of MPI_Sendrecv work on it.
 *   3. A second session at once: "mpi://SELF" gives a communicator of one.
 *   4. MPI_Session_create_errhandler / _set / _get / _call_errhandler: the
 *      program's handler runs with the code it was given.
 *   5. MPI_Session_finalize of both sets the handles to MPI_SESSION_NULL.
 *   6. MPI_Session_get_pset_info gives each set's "mpi_size"; an unknown set is
 *      MPI_ERR_ARG. MPI_Session_get_info reports "mpi_thread_support_level".
 *   7. A buffer attached to the session carries MPI_Bsend on the communicator made
 *      from it (no other buffer is attached), and detaching returns it.
 *
 * Prints "sessions: OK (N ranks)" from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "sessions"
#include "check.h"

static int handler_calls = 0, handler_code = 0;

static void on_error(MPI_Session *session, int *code, ...) {
  (void)session;
  ++handler_calls;
  handler_code = *code;
}

int main(void) {
  MPI_Session session, second;
  int n = -1, len, i;
  char name[64];
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));

  /* 1. */
  CHECK_MPI(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n));
  EXPECT_INT("MPI_Session_get_num_psets", n, 2);
  for (i = 0; i < 2; ++i) {
    const char *expected = i == 0 ? "mpi://WORLD" : "mpi://SELF";
    len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, NULL));
    EXPECT_INT("MPI_Session_get_nth_pset length", len, (int)strlen(expected) + 1);
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, name));
    if (strcmp(name, expected) != 0)
      fail("pset %d: got \"%s\", expected \"%s\"", i, name, expected);
  }

  /* 2. */
  MPI_Group world_group;
  MPI_Comm world;
  int rank = -1, size = -1, grank = -1, gsize = -1, sum = -1;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &world_group));
  CHECK_MPI(MPI_Group_size(world_group, &gsize));
  CHECK_MPI(MPI_Group_rank(world_group, &grank));
  CHECK_MPI(MPI_Comm_create_from_group(world_group, "org.weft.sessions.world", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &world));
  CHECK_MPI(MPI_Comm_rank(world, &rank));
  CHECK_MPI(MPI_Comm_size(world, &size));
  g_rank = rank;
  EXPECT_INT("MPI_Comm_size", size, gsize);
  EXPECT_INT("MPI_Comm_rank", rank, grank);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, world));
  EXPECT_INT("MPI_Allreduce", sum, size * (size - 1) / 2);
  {
    int out = 100 + rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT,
                           (rank + size - 1) % size, 0, world, MPI_STATUS_IGNORE));
    EXPECT_INT("ring", in, 100 + (rank + size - 1) % size);
  }

  /* 6. */
  {
    MPI_Info info;
    char value[64];
    int flag = 0;
    CHECK_MPI(MPI_Session_get_pset_info(session, "mpi://WORLD", &info));
    CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
    if (!flag || atoi(value) != size) fail("mpi://WORLD's mpi_size is \"%s\"", value);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Session_get_pset_info(session, "mpi://SELF", &info));
    CHECK_MPI(MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag));
    if (!flag || strcmp(value, "1") != 0) fail("mpi://SELF's mpi_size is \"%s\"", value);
    CHECK_MPI(MPI_Info_free(&info));
    int rc = MPI_Session_get_pset_info(session, "mpi://NOWHERE", &info);
    int error_class = -1;
    MPI_Error_class(rc, &error_class);
    EXPECT_INT("MPI_Session_get_pset_info of an unknown set", error_class, MPI_ERR_ARG);
    CHECK_MPI(MPI_Session_get_info(session, &info));
    CHECK_MPI(MPI_Info_get(info, "mpi_thread_support_level", sizeof value - 1, value, &flag));
    if (!flag) fail("MPI_Session_get_info has no mpi_thread_support_level");
    CHECK_MPI(MPI_Info_free(&info));
  }
  /* 7. */
  {
    int bytes = 64 + MPI_BSEND_OVERHEAD;
    char *space = xmalloc((size_t)bytes);
    CHECK_MPI(MPI_Session_attach_buffer(session, space, bytes));
    int out = 7 * rank, in = -1;
    CHECK_MPI(MPI_Bsend(&out, 1, MPI_INT, (rank + 1) % size, 1, world));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 1, world, MPI_STATUS_IGNORE));
    EXPECT_INT("MPI_Bsend through the session's buffer", in, 7 * ((rank + size - 1) % size));
    CHECK_MPI(MPI_Session_flush_buffer(session));
    void *detached = NULL;
    int detached_size = 0;
    CHECK_MPI(MPI_Session_detach_buffer(session, &detached, &detached_size));
    if (detached != space || detached_size != bytes) fail("MPI_Session_detach_buffer");
    free(space);
  }

  /* 3. */
  MPI_Group self_group;
  MPI_Comm self;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second));
  CHECK_MPI(MPI_Group_from_session_pset(second, "mpi://SELF", &self_group));
  CHECK_MPI(MPI_Comm_create_from_group(self_group, "org.weft.sessions.self", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &self));
  CHECK_MPI(MPI_Comm_size(self, &n));
  EXPECT_INT("self: MPI_Comm_size", n, 1);

  /* 4. */
  MPI_Errhandler handler, got;
  CHECK_MPI(MPI_Session_create_errhandler(on_error, &handler));
  CHECK_MPI(MPI_Session_set_errhandler(second, handler));
  CHECK_MPI(MPI_Session_get_errhandler(second, &got));
  if (got != handler) fail("MPI_Session_get_errhandler: not the handler set");
  CHECK_MPI(MPI_Session_call_errhandler(second, MPI_ERR_OTHER));
  EXPECT_INT("handler calls", handler_calls, 1);
  EXPECT_INT("handler code", handler_code, MPI_ERR_OTHER);
  CHECK_MPI(MPI_Errhandler_free(&handler));

  /* 5. */
  CHECK_MPI(MPI_Comm_free(&self));
  CHECK_MPI(MPI_Group_free(&self_group));
  CHECK_MPI(MPI_Session_finalize(&second));
  if (second != MPI_SESSION_NULL) fail("MPI_Session_finalize: handle not MPI_SESSION_NULL");
  CHECK_MPI(MPI_Barrier(world));
  CHECK_MPI(MPI_Comm_free(&world));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Session_finalize(&session));
  if (session != MPI_SESSION_NULL) fail("MPI_Session_finalize: handle not MPI_SESSION_NULL");
  g_finalized = 1;
  if (rank == 0) {
    printf("%s: OK (%d ranks)\n", PROGRAM, size);
    fflush(stdout);
  }
  return 0;
}

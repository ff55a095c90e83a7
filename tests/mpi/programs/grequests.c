/*
 * grequests.c - generalized requests and statuses the program fills itself.
 *
 * Checks:
 *   - MPI_Status_set_source/_tag/_error/_elements/_cancelled and their getters,
 *     MPI_Get_count and MPI_Get_elements on a status so filled, MPI_Test_cancelled.
 *   - A generalized request is not done until MPI_Grequest_complete (MPI_Test false,
 *     MPI_Request_get_status false); MPI_Wait then calls the query callback, whose
 *     status it returns, and the free callback, and sets MPI_REQUEST_NULL.
 *   - MPI_Cancel calls the cancel callback with whether the request completed.
 *   - MPI_Request_free before MPI_Grequest_complete: the free callback runs at the
 *     completion.
 *   - A request completed by another thread, waited for with MPI_Waitall among others;
 *     MPI_Request_get_status_all/_any/_some look without completing.
 *   - A query callback's error is MPI_Wait's.
 *
 * Prints "grequests: OK (N ranks)" from rank 0.
 */
#define PROGRAM "grequests"
#include <pthread.h>
#include <string.h>

#include "check.h"

struct State {
  int source, tag, queries, frees, cancels, cancel_completed, query_error;
};

static int query(void *extra, MPI_Status *status) {
  struct State *s = extra;
  ++s->queries;
  MPI_Status_set_source(status, s->source);
  MPI_Status_set_tag(status, s->tag);
  MPI_Status_set_elements(status, MPI_INT, 3);
  MPI_Status_set_cancelled(status, 0);
  return s->query_error;
}

static int free_fn(void *extra) {
  ++((struct State *)extra)->frees;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  struct State *s = extra;
  ++s->cancels;
  s->cancel_completed = complete;
  return MPI_SUCCESS;
}

static void *complete_later(void *request) {
  MPI_Grequest_complete(*(MPI_Request *)request);
  return NULL;
}

int main(int argc, char **argv) {
  int size, provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Status status;
  int value, count, flag;
  memset(&status, 0, sizeof status);
  CHECK_MPI(MPI_Status_set_source(&status, 2));
  CHECK_MPI(MPI_Status_set_tag(&status, 17));
  CHECK_MPI(MPI_Status_set_error(&status, MPI_ERR_OTHER));
  CHECK_MPI(MPI_Status_set_elements(&status, MPI_DOUBLE, 5));
  CHECK_MPI(MPI_Status_get_source(&status, &value));
  EXPECT_INT("source", value, 2);
  CHECK_MPI(MPI_Status_get_tag(&status, &value));
  EXPECT_INT("tag", value, 17);
  CHECK_MPI(MPI_Status_get_error(&status, &value));
  EXPECT_INT("error", value, MPI_ERR_OTHER);
  CHECK_MPI(MPI_Get_count(&status, MPI_DOUBLE, &count));
  EXPECT_INT("count", count, 5);
  CHECK_MPI(MPI_Get_elements(&status, MPI_DOUBLE, &count));
  EXPECT_INT("elements", count, 5);
  int big = 0;
  CHECK_MPI(MPI_Status_set_elements_x(&status, MPI_INT, 7));
  CHECK_MPI(MPI_Get_elements(&status, MPI_INT, &big));
  EXPECT_INT("elements_x", big, 7);
  CHECK_MPI(MPI_Status_set_cancelled(&status, 1));
  CHECK_MPI(MPI_Test_cancelled(&status, &flag));
  EXPECT_INT("cancelled", flag, 1);
  CHECK_MPI(MPI_Get_elements(&status, MPI_INT, &big));
  EXPECT_INT("elements kept by set_cancelled", big, 7);
  CHECK_MPI(MPI_Status_set_cancelled(&status, 0));
  CHECK_MPI(MPI_Test_cancelled(&status, &flag));
  EXPECT_INT("not cancelled", flag, 0);

  /* One request, step by step. */
  struct State s = {g_rank, 5, 0, 0, 0, -1, MPI_SUCCESS};
  MPI_Request request;
  CHECK_MPI(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &request));
  CHECK_MPI(MPI_Test(&request, &flag, &status));
  EXPECT_INT("done before completion", flag, 0);
  CHECK_MPI(MPI_Request_get_status(request, &flag, &status));
  EXPECT_INT("get_status before completion", flag, 0);
  CHECK_MPI(MPI_Cancel(&request));
  EXPECT_INT("cancel callbacks", s.cancels, 1);
  EXPECT_INT("cancel told completed", s.cancel_completed, 0);
  CHECK_MPI(MPI_Grequest_complete(request));
  CHECK_MPI(MPI_Request_get_status(request, &flag, &status));
  EXPECT_INT("get_status after completion", flag, 1);
  if (request == MPI_REQUEST_NULL) fail("MPI_Request_get_status freed the request");
  CHECK_MPI(MPI_Wait(&request, &status));
  if (request != MPI_REQUEST_NULL) fail("MPI_Wait left the request");
  expect_status("generalized request", &status, g_rank, 5, MPI_INT, 3);
  EXPECT_INT("free callbacks", s.frees, 1);
  if (s.queries < 2) fail("query callbacks: %d", s.queries);

  /* Freed first: the free callback waits for the completion. */
  struct State t = {0, 0, 0, 0, 0, -1, MPI_SUCCESS};
  CHECK_MPI(MPI_Grequest_start(query, free_fn, cancel_fn, &t, &request));
  MPI_Request handle = request;
  CHECK_MPI(MPI_Request_free(&request));
  EXPECT_INT("free callbacks before completion", t.frees, 0);
  CHECK_MPI(MPI_Grequest_complete(handle));
  EXPECT_INT("free callbacks after completion", t.frees, 1);

  /* Several, one completed by another thread, with a message among them. */
  struct State u[3] = {{1, 1, 0, 0, 0, -1, 0}, {2, 2, 0, 0, 0, -1, 0}, {3, 3, 0, 0, 0, -1, 0}};
  MPI_Request requests[4];
  MPI_Status statuses[4];
  for (int i = 0; i < 3; ++i)
    CHECK_MPI(MPI_Grequest_start(query, free_fn, cancel_fn, &u[i], &requests[i]));
  int out = g_rank, in = -1;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &requests[3]));
  CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
  CHECK_MPI(MPI_Grequest_complete(requests[1]));
  int index = -1, outcount = -1, indices[4];
  CHECK_MPI(MPI_Request_get_status_all(3, requests, &flag, statuses));
  EXPECT_INT("get_status_all with pending ones", flag, 0);
  CHECK_MPI(MPI_Request_get_status_any(3, requests, &index, &flag, &status));
  EXPECT_INT("get_status_any flag", flag, 1);
  EXPECT_INT("get_status_any index", index, 1);
  CHECK_MPI(MPI_Request_get_status_some(3, requests, &outcount, indices, statuses));
  EXPECT_INT("get_status_some outcount", outcount, 1);
  EXPECT_INT("get_status_some index", indices[0], 1);
  EXPECT_INT("get_status_some source", statuses[0].MPI_SOURCE, 2);
  CHECK_MPI(MPI_Grequest_complete(requests[0]));
  pthread_t thread;
  if (pthread_create(&thread, NULL, complete_later, &requests[2]) != 0) fail("pthread_create");
  MPI_Request third = requests[2];
  (void)third;
  CHECK_MPI(MPI_Waitall(4, requests, statuses));
  pthread_join(thread, NULL);
  for (int i = 0; i < 3; ++i) {
    EXPECT_INT("Waitall source", statuses[i].MPI_SOURCE, i + 1);
    EXPECT_INT("Waitall frees", u[i].frees, 1);
  }
  EXPECT_INT("message", in, g_rank);

  /* The query callback's error is the request's. */
  struct State v = {0, 0, 0, 0, 0, -1, MPI_ERR_BUFFER};
  CHECK_MPI(MPI_Grequest_start(query, free_fn, cancel_fn, &v, &request));
  CHECK_MPI(MPI_Grequest_complete(request));
  EXPECT_INT("MPI_Wait with a failing query", MPI_Wait(&request, &status), MPI_ERR_BUFFER);
  EXPECT_INT("free callbacks after a failing query", v.frees, 1);

  finalize_and_report(size);
  return 0;
}

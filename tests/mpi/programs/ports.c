/*
 * ports.c - connecting processes of one job: MPI_Open_port, MPI_Close_port,
 * MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join and the name service
 * (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name).
 *
 * Checks:
 *   1. With 2 ranks or more, as mpi4py's test_dynproc does both ways: world
 *      rank 0 accepts on MPI_COMM_SELF while the others (a communicator of
 *      world ranks 1..size-1) connect with root 0; then world rank 1 opens the
 *      port and its side accepts while rank 0 connects. Each time the sizes,
 *      ranks and remote group (the other side's ranks, in its order) are
 *      checked, and an MPI_Bcast from rank 0 and a send back over the
 *      intercommunicator arrive.
 *   2. With 2 ranks or more: ranks 0 and 1 connect a TCP socket over the
 *      loopback and call MPI_Comm_join on it: an intercommunicator of one and
 *      one, over which a message passes.
 *   3. Every rank opens a port and publishes it as "ports-test-<rank>"; after
 *      a barrier each looks up its right neighbour's name and finds the port
 *      that neighbour sent it; then each unpublishes its own.
 *   4. Error classes: MPI_Lookup_name of an unknown name is MPI_ERR_NAME;
 *      MPI_Unpublish_name of an unknown name is MPI_ERR_SERVICE; MPI_Close_port
 *      of a closed port and MPI_Comm_connect to a closed port or to a malformed
 *      port name are MPI_ERR_PORT. Under weft also: publishing a name twice is
 *      MPI_ERR_SERVICE, a connect to a port of another job MPI_ERR_PORT, and
 *      MPI_Comm_join with a peer that is no process of this job MPI_ERR_OTHER.
 *
 * Prints "ports: OK (N ranks)" from rank 0.
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROGRAM "ports"
#include "check.h"

static int rank, size, is_weft;

/* Fails unless `rc` is an error of class `expected`. */
/* Checks that `inter` joins `lsize` local ranks (this one `lrank`) with the remote
 * world ranks `remote`, in that order. */
static void check_intercomm(const char *what, MPI_Comm inter, int lsize, int lrank,
                            const int *remote, int rsize) {
  int flag = 0, n = 0, i;
  char buf[160];
  MPI_Group world_group, remote_group;
  int ranks[4], world_ranks[4];
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_test_inter", what);
  EXPECT_INT(buf, flag, 1);
  CHECK_MPI(MPI_Comm_size(inter, &n));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_size", what);
  EXPECT_INT(buf, n, lsize);
  CHECK_MPI(MPI_Comm_rank(inter, &n));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_rank", what);
  EXPECT_INT(buf, n, lrank);
  CHECK_MPI(MPI_Comm_remote_size(inter, &n));
  snprintf(buf, sizeof buf, "%s: MPI_Comm_remote_size", what);
  EXPECT_INT(buf, n, rsize);
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK_MPI(MPI_Comm_remote_group(inter, &remote_group));
  for (i = 0; i < rsize; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(remote_group, rsize, ranks, world_group, world_ranks));
  for (i = 0; i < rsize; ++i) {
    snprintf(buf, sizeof buf, "%s: world rank of remote rank %d", what, i);
    EXPECT_INT(buf, world_ranks[i], remote[i]);
  }
  CHECK_MPI(MPI_Group_free(&remote_group));
  CHECK_MPI(MPI_Group_free(&world_group));
}

/* World rank 0 on one side, the others (`rest`, ordered by world rank) on the
 * other; `zero_accepts` says which side opens the port and accepts. */
static void accept_connect(MPI_Comm rest, int zero_accepts) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  int others[4], zero[1] = {0}, i, value = 0;
  const char *what = zero_accepts ? "rank 0 accepts" : "rank 0 connects";
  for (i = 1; i < size; ++i) others[i - 1] = i;
  if (rank == 0) {
    if (zero_accepts) {
      CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
      CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
      CHECK_MPI(MPI_Close_port(port));
    } else {
      CHECK_MPI(
          MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    }
    check_intercomm(what, inter, 1, 0, others, size - 1);
    value = 4242;
    CHECK_MPI(MPI_Bcast(&value, 1, MPI_INT, MPI_ROOT, inter));
    for (i = 0; i < size - 1; ++i) {
      CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, i, 7, inter, MPI_STATUS_IGNORE));
      EXPECT_INT("value sent back over the intercommunicator", value, 100 + i);
    }
  } else {
    if (zero_accepts) {
      if (rank == 1) {
        CHECK_MPI(
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
      CHECK_MPI(MPI_Comm_connect(rank == 1 ? port : NULL, MPI_INFO_NULL, 0, rest, &inter));
    } else {
      if (rank == 1) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD));
      }
      CHECK_MPI(MPI_Comm_accept(rank == 1 ? port : NULL, MPI_INFO_NULL, 0, rest, &inter));
      if (rank == 1) CHECK_MPI(MPI_Close_port(port));
    }
    check_intercomm(what, inter, size - 1, rank - 1, zero, 1);
    CHECK_MPI(MPI_Bcast(&value, 1, MPI_INT, 0, inter));
    EXPECT_INT("value broadcast over the intercommunicator", value, 4242);
    value = 100 + rank - 1;
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 0, 7, inter));
  }
  CHECK_MPI(MPI_Comm_disconnect(&inter));
}

/* Ranks 0 and 1 join over a TCP connection on the loopback. */
static void join(void) {
  int fd = -1, port = 0, value = 0, one[1];
  struct sockaddr_in addr;
  socklen_t len = sizeof addr;
  MPI_Comm inter;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (rank == 0) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listener, 1) != 0 || getsockname(listener, (struct sockaddr *)&addr, &len) != 0)
      fail("cannot listen on the loopback");
    port = ntohs(addr.sin_port);
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    fd = accept(listener, NULL, NULL);
    close(listener);
  } else if (rank == 1) {
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    addr.sin_port = htons((unsigned short)port);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) fd = -1;
  }
  if (rank > 1) return;
  if (fd < 0) fail("no TCP connection between ranks 0 and 1");
  CHECK_MPI(MPI_Comm_join(fd, &inter));
  close(fd);
  one[0] = 1 - rank;
  check_intercomm("MPI_Comm_join", inter, 1, 0, one, 1);
  if (rank == 0) {
    value = 99;
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 0, 3, inter));
  } else {
    CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE));
    EXPECT_INT("value sent over the joined intercommunicator", value, 99);
  }
  CHECK_MPI(MPI_Comm_free(&inter));
}

static void names(void) {
  char mine[MPI_MAX_PORT_NAME] = "", theirs[MPI_MAX_PORT_NAME] = "";
  char found[MPI_MAX_PORT_NAME] = "", service[64];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, mine));
  snprintf(service, sizeof service, "ports-test-%d", rank);
  CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, mine));
  /* weft refuses a second publication of a name; Open MPI 4.1 accepts it (and also
   * lets an unknown name be unpublished, so it does not run this program). */
  if (is_weft) {
    expect_class("MPI_Publish_name of a published name",
                 MPI_Publish_name(service, MPI_INFO_NULL, mine), MPI_ERR_SERVICE);
  }
  CHECK_MPI(MPI_Sendrecv(mine, MPI_MAX_PORT_NAME, MPI_CHAR, left, 2, theirs, MPI_MAX_PORT_NAME,
                         MPI_CHAR, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  snprintf(service, sizeof service, "ports-test-%d", right);
  CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
  if (strcmp(found, theirs) != 0)
    fail("MPI_Lookup_name(\"%s\") found \"%s\", expected \"%s\"", service, found, theirs);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  snprintf(service, sizeof service, "ports-test-%d", rank);
  CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, mine));
  expect_class("MPI_Lookup_name of an unpublished name",
               MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
  expect_class("MPI_Unpublish_name of an unpublished name",
               MPI_Unpublish_name(service, MPI_INFO_NULL, mine), MPI_ERR_SERVICE);
  expect_class("MPI_Lookup_name of a name never published",
               MPI_Lookup_name("ports-test-never", MPI_INFO_NULL, found), MPI_ERR_NAME);
  CHECK_MPI(MPI_Close_port(mine));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void port_errors(void) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter = MPI_COMM_NULL;
  CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
  CHECK_MPI(MPI_Close_port(port));
  expect_class("MPI_Close_port of a closed port", MPI_Close_port(port), MPI_ERR_PORT);
  expect_class("MPI_Comm_connect to a closed port",
               MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
  expect_class("MPI_Comm_connect to a malformed port name",
               MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter),
               MPI_ERR_PORT);
  if (is_weft) {
    /* "weft-port:<job>:<rank>:<id>": another job's identity in place of this one's. */
    char *job = strchr(port, ':') + 1;
    job[0] = job[0] == '0' ? '1' : '0';
    expect_class("MPI_Comm_connect to another job's port",
                 MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
  }
}

/* Under weft: a peer that writes something else than a weft process would. */
static void join_stranger(void) {
  int fds[2];
  MPI_Comm inter = MPI_COMM_NULL;
  char junk[64];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) fail("socketpair");
  memset(junk, 'x', sizeof junk);
  if (write(fds[1], junk, sizeof junk) != (ssize_t)sizeof junk) fail("write to socketpair");
  expect_class("MPI_Comm_join with a stranger", MPI_Comm_join(fds[0], &inter), MPI_ERR_OTHER);
  close(fds[0]);
  close(fds[1]);
}

int main(int argc, char **argv) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  if (size > 4) fail("run this with 1 to 4 ranks");
  CHECK_MPI(MPI_Get_library_version(version, &len));
  is_weft = strncmp(version, "weft", 4) == 0;
  /* Errors of calls without a communicator go to MPI_COMM_SELF's handler (MPI-4),
   * or MPI_COMM_WORLD's (earlier versions). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  if (size >= 2) {
    MPI_Group world_group, rest_group;
    MPI_Comm rest;
    int zero = 0;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CHECK_MPI(MPI_Group_excl(world_group, 1, &zero, &rest_group));
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, rest_group, &rest));
    accept_connect(rest, 1);
    accept_connect(rest, 0);
    if (rest != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&rest));
    CHECK_MPI(MPI_Group_free(&rest_group));
    CHECK_MPI(MPI_Group_free(&world_group));
    join();
  }
  names();
  port_errors();
  if (is_weft) join_stranger();

  finalize_and_report(size);
  return 0;
}

/*
 * abi_handles.c - the standard ABI's own queries, handles as integers, and refusals.
 *
 * Checks:
 *   - MPI_Abi_get_version, before MPI_Init, gives MPI_ABI_VERSION.MPI_ABI_SUBVERSION.
 *   - MPI_<kind>_toint of a predefined handle is the handle's value, and _fromint of
 *     that gives the handle back; a communicator and a group the program made convert
 *     to integers and back to the same handles, and the same integer each time.
 *   - A function of the standard that weft refuses reports the standard's class under
 *     MPI_ERRORS_RETURN (MPI_Comm_spawn and MPI_Comm_spawn_multiple: MPI_ERR_SPAWN),
 *     and nothing is written to the output arguments.
 *
 * Prints "abi_handles: OK (N ranks)" from rank 0 after MPI_Finalize.
 */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#define PROGRAM "abi_handles"
#include "check.h"

int main(int argc, char **argv) {
  int major = -1, minor = -1;
  if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != MPI_ABI_VERSION ||
      minor != MPI_ABI_SUBVERSION) {
    fail("MPI_Abi_get_version gave %d.%d", major, minor);
  }
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (MPI_Comm_toint(MPI_COMM_WORLD) != (int)(intptr_t)MPI_COMM_WORLD) {
    fail("MPI_Comm_toint(MPI_COMM_WORLD) = %d", MPI_Comm_toint(MPI_COMM_WORLD));
  }
  if (MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)) != MPI_COMM_SELF) {
    fail("MPI_COMM_SELF does not survive toint/fromint");
  }
  if (MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) != MPI_DOUBLE) {
    fail("MPI_DOUBLE does not survive toint/fromint");
  }
  if (MPI_Op_toint(MPI_SUM) != (int)(intptr_t)MPI_SUM) fail("MPI_Op_toint(MPI_SUM)");

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int dup_number = MPI_Comm_toint(dup);
  if (MPI_Comm_toint(dup) != dup_number) fail("a communicator's integer changed");
  if (MPI_Comm_fromint(dup_number) != dup) fail("a communicator's integer names another");
  int dup_size;
  MPI_Comm_size(MPI_Comm_fromint(dup_number), &dup_size);
  if (dup_size != size) fail("the converted communicator has size %d, not %d", dup_size, size);
  MPI_Group group;
  MPI_Comm_group(dup, &group);
  if (MPI_Group_fromint(MPI_Group_toint(group)) != group) fail("a group's integer");
  MPI_Group_free(&group);
  MPI_Comm_free(&dup);

  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm child = MPI_COMM_SELF;
  int rc = MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
                          MPI_ERRCODES_IGNORE);
  int error_class = -1;
  MPI_Error_class(rc, &error_class);
  if (error_class != MPI_ERR_SPAWN) fail("MPI_Comm_spawn gave class %d", error_class);
  if (child != MPI_COMM_SELF) fail("a refused MPI_Comm_spawn wrote its output");
  char command[] = "true";
  char *commands[] = {command};
  int maxprocs[] = {1};
  MPI_Info infos[] = {MPI_INFO_NULL};
  child = MPI_COMM_SELF;
  rc = MPI_Comm_spawn_multiple(1, commands, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_SELF,
                               &child, MPI_ERRCODES_IGNORE);
  MPI_Error_class(rc, &error_class);
  if (error_class != MPI_ERR_SPAWN) fail("MPI_Comm_spawn_multiple gave %d", error_class);
  if (child != MPI_COMM_SELF) fail("a refused MPI_Comm_spawn_multiple wrote its output");

  finalize_and_report(size);
  return 0;
}

/*
 * errors_ext.c - erroneous calls that weft detects and reports with the standard's
 * error class, where the standard leaves detection to the implementation (Open MPI
 * accepts several of them silently), so this program runs on weft alone.
 *
 * With MPI_ERRORS_RETURN on MPI_COMM_WORLD, each call below returns the class named:
 *   MPI_Cancel of a non-blocking collective's request        -> MPI_ERR_REQUEST
 *   MPI_Group_range_incl with a stride of 0                  -> MPI_ERR_ARG
 *   MPI_Group_range_excl with a range ending outside the group -> MPI_ERR_RANK
 *   MPI_Comm_get_attr of a key never created                 -> MPI_ERR_KEYVAL
 *   MPI_Win_create with a negative size                      -> MPI_ERR_SIZE
 *   MPI_Win_create with a displacement unit of 0             -> MPI_ERR_DISP
 *   MPI_Win_attach to a window of MPI_Win_create             -> MPI_ERR_RMA_FLAVOR
 *   MPI_Win_detach of an address never attached              -> MPI_ERR_RMA_ATTACH
 * and the program carries on afterwards.
 */
#define PROGRAM "errors_ext"
#include "check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  int in = rank, out = -1;
  MPI_Request request;
  CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request));
  expect_class("MPI_Cancel of an MPI_Iallreduce", MPI_Cancel(&request), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  EXPECT_INT("the MPI_Iallreduce after the refused cancel", out, size * (size - 1) / 2);

  MPI_Group world, group;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int zero_stride[1][3] = {{0, 0, 0}}, outside[1][3] = {{0, size, 1}};
  expect_class("MPI_Group_range_incl with stride 0",
               MPI_Group_range_incl(world, 1, zero_stride, &group), MPI_ERR_ARG);
  expect_class("MPI_Group_range_excl past the group",
               MPI_Group_range_excl(world, 1, outside, &group), MPI_ERR_RANK);
  CHECK_MPI(MPI_Group_free(&world));

  int *value, flag;
  expect_class("MPI_Comm_get_attr of an unknown key",
               MPI_Comm_get_attr(MPI_COMM_WORLD, 987654, &value, &flag), MPI_ERR_KEYVAL);

  int array[4];
  MPI_Win win;
  expect_class("MPI_Win_create with size -1",
               MPI_Win_create(array, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
  expect_class("MPI_Win_create with disp_unit 0",
               MPI_Win_create(array, sizeof array, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
               MPI_ERR_DISP);
  CHECK_MPI(MPI_Win_create(array, sizeof array, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  expect_class("MPI_Win_attach to a window of MPI_Win_create",
               MPI_Win_attach(win, array, sizeof array), MPI_ERR_RMA_FLAVOR);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  expect_class("MPI_Win_detach of an address never attached", MPI_Win_detach(win, array),
               MPI_ERR_RMA_ATTACH);
  CHECK_MPI(MPI_Win_free(&win));

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  finalize_and_report(size);
  return 0;
}

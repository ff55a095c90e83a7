// The split collective reads and writes of MPI-IO: each one is file_data.cc's file_split_begin with
// the place the access starts at (an explicit offset, the individual file pointer, the shared one,
// or the shared one in rank order). The begin call does the I/O; the end call gives its status. The
// _c forms take an MPI_Count.
#include "mpi/src/export.h"
#include "mpi/src/files.h"

using weft::mpi::Access;
using weft::mpi::file_call;
using weft::mpi::Where;

extern "C" {

int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return file_call("MPI_File_read_all_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kIndividual, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_all_begin)

int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return file_call("MPI_File_read_all_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kIndividual, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_all_begin_c)

int PMPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  return file_call("MPI_File_read_all_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_read_all_end)

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                MPI_Datatype datatype) {
  return file_call("MPI_File_read_at_all_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kExplicit, offset, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_at_all_begin)

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                  MPI_Datatype datatype) {
  return file_call("MPI_File_read_at_all_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kExplicit, offset, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_at_all_begin_c)

int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  return file_call("MPI_File_read_at_all_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_read_at_all_end)

int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return file_call("MPI_File_read_ordered_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kOrdered, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_ordered_begin)

int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return file_call("MPI_File_read_ordered_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kRead, Where::kOrdered, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_read_ordered_begin_c)

int PMPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  return file_call("MPI_File_read_ordered_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_read_ordered_end)

int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return file_call("MPI_File_write_all_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kIndividual, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_all_begin)

int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                MPI_Datatype datatype) {
  return file_call("MPI_File_write_all_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kIndividual, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_all_begin_c)

int PMPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  return file_call("MPI_File_write_all_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_write_all_end)

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                 MPI_Datatype datatype) {
  return file_call("MPI_File_write_at_all_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kExplicit, offset, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_at_all_begin)

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                   MPI_Datatype datatype) {
  return file_call("MPI_File_write_at_all_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kExplicit, offset, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_at_all_begin_c)

int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  return file_call("MPI_File_write_at_all_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_write_at_all_end)

int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return file_call("MPI_File_write_ordered_begin", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kOrdered, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_ordered_begin)

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                    MPI_Datatype datatype) {
  return file_call("MPI_File_write_ordered_begin_c", fh, [&] {
    weft::mpi::file_split_begin(fh, Access::kWrite, Where::kOrdered, 0, buf, count, datatype);
  });
}
WEFT_MPI_ALIAS(File_write_ordered_begin_c)

int PMPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  return file_call("MPI_File_write_ordered_end", fh,
                   [&] { weft::mpi::file_split_end(fh, buf, status); });
}
WEFT_MPI_ALIAS(File_write_ordered_end)

}  // extern "C"

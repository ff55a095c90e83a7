// The blocking reads and writes of MPI-IO: each one is file_data.cc's file_access with the
// place the access starts at (an explicit offset, the individual file pointer, the
// shared one, or the shared one in rank order). The _c forms take an MPI_Count.
#include "mpi/src/export.h"
#include "mpi/src/files.h"

using weft::mpi::Access;
using weft::mpi::Coordination;
using weft::mpi::file_call;
using weft::mpi::Where;

namespace {

// Every blocking read and write: file_access under the calling function's name, so that
// an error goes to the file's handler as that function's.
int access_as(const char* function, MPI_File fh, Access access, Where where,
              Coordination coordination, MPI_Offset offset, const void* buf, MPI_Count count,
              MPI_Datatype datatype, MPI_Status* status) {
  return file_call(function, fh, [&] {
    weft::mpi::file_access(fh, access, where, coordination, offset, buf, count, datatype, status);
  });
}

}  // namespace

extern "C" {

int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_read", fh, Access::kRead, Where::kIndividual,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read)

int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status* status) {
  return access_as("MPI_File_read_c", fh, Access::kRead, Where::kIndividual,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_c)

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return access_as("MPI_File_read_at", fh, Access::kRead, Where::kExplicit,
                   Coordination::kIndependent, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_at)

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_read_at_c", fh, Access::kRead, Where::kExplicit,
                   Coordination::kIndependent, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_at_c)

int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return access_as("MPI_File_read_all", fh, Access::kRead, Where::kIndividual,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_all)

int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status* status) {
  return access_as("MPI_File_read_all_c", fh, Access::kRead, Where::kIndividual,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_all_c)

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                          MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_read_at_all", fh, Access::kRead, Where::kExplicit,
                   Coordination::kCollective, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_at_all)

int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_read_at_all_c", fh, Access::kRead, Where::kExplicit,
                   Coordination::kCollective, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_at_all_c)

int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return access_as("MPI_File_read_shared", fh, Access::kRead, Where::kShared,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_shared)

int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status* status) {
  return access_as("MPI_File_read_shared_c", fh, Access::kRead, Where::kShared,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_shared_c)

int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return access_as("MPI_File_read_ordered", fh, Access::kRead, Where::kOrdered,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_ordered)

int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status* status) {
  return access_as("MPI_File_read_ordered_c", fh, Access::kRead, Where::kOrdered,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_read_ordered_c)

int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                    MPI_Status* status) {
  return access_as("MPI_File_write", fh, Access::kWrite, Where::kIndividual,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write)

int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status* status) {
  return access_as("MPI_File_write_c", fh, Access::kWrite, Where::kIndividual,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_c)

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                       MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_write_at", fh, Access::kWrite, Where::kExplicit,
                   Coordination::kIndependent, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_at)

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_write_at_c", fh, Access::kWrite, Where::kExplicit,
                   Coordination::kIndependent, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_at_c)

int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Status* status) {
  return access_as("MPI_File_write_all", fh, Access::kWrite, Where::kIndividual,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_all)

int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return access_as("MPI_File_write_all_c", fh, Access::kWrite, Where::kIndividual,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_all_c)

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                           MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_write_at_all", fh, Access::kWrite, Where::kExplicit,
                   Coordination::kCollective, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_at_all)

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status* status) {
  return access_as("MPI_File_write_at_all_c", fh, Access::kWrite, Where::kExplicit,
                   Coordination::kCollective, offset, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_at_all_c)

int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return access_as("MPI_File_write_shared", fh, Access::kWrite, Where::kShared,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_shared)

int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status* status) {
  return access_as("MPI_File_write_shared_c", fh, Access::kWrite, Where::kShared,
                   Coordination::kIndependent, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_shared_c)

int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Status* status) {
  return access_as("MPI_File_write_ordered", fh, Access::kWrite, Where::kOrdered,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_ordered)

int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status* status) {
  return access_as("MPI_File_write_ordered_c", fh, Access::kWrite, Where::kOrdered,
                   Coordination::kCollective, 0, buf, count, datatype, status);
}
WEFT_MPI_ALIAS(File_write_ordered_c)

}  // extern "C"

// The non-blocking reads and writes of MPI-IO: each one is file_data.cc's file_iaccess with the
// place the access starts at (an explicit offset, the individual file pointer, the
// shared one, or the shared one in rank order). The I/O is done when they return, and the request
// complete. The _c forms take an MPI_Count.
#include "mpi/src/export.h"
#include "mpi/src/files.h"

using weft::mpi::Access;
using weft::mpi::Coordination;
using weft::mpi::file_call;
using weft::mpi::Where;

namespace {

// Every non-blocking read and write: file_iaccess under the calling function's name, so
// that an error goes to the file's handler as that function's.
int iaccess_as(const char* function, MPI_File fh, Access access, Where where,
               Coordination coordination, MPI_Offset offset, const void* buf, MPI_Count count,
               MPI_Datatype datatype, MPI_Request* request) {
  return file_call(function, fh, [&] {
    weft::mpi::file_iaccess(fh, access, where, coordination, offset, buf, count, datatype, request);
  });
}

}  // namespace

extern "C" {

int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                    MPI_Request* request) {
  return iaccess_as("MPI_File_iread", fh, Access::kRead, Where::kIndividual,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread)

int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request* request) {
  return iaccess_as("MPI_File_iread_c", fh, Access::kRead, Where::kIndividual,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_c)

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return iaccess_as("MPI_File_iread_at", fh, Access::kRead, Where::kExplicit,
                    Coordination::kIndependent, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_at)

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iread_at_c", fh, Access::kRead, Where::kExplicit,
                    Coordination::kIndependent, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_at_c)

int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return iaccess_as("MPI_File_iread_all", fh, Access::kRead, Where::kIndividual,
                    Coordination::kCollective, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_all)

int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request* request) {
  return iaccess_as("MPI_File_iread_all_c", fh, Access::kRead, Where::kIndividual,
                    Coordination::kCollective, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_all_c)

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                           MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iread_at_all", fh, Access::kRead, Where::kExplicit,
                    Coordination::kCollective, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_at_all)

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iread_at_all_c", fh, Access::kRead, Where::kExplicit,
                    Coordination::kCollective, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_at_all_c)

int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return iaccess_as("MPI_File_iread_shared", fh, Access::kRead, Where::kShared,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_shared)

int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request* request) {
  return iaccess_as("MPI_File_iread_shared_c", fh, Access::kRead, Where::kShared,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iread_shared_c)

int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                     MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite", fh, Access::kWrite, Where::kIndividual,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite)

int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_c", fh, Access::kWrite, Where::kIndividual,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_c)

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                        MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_at", fh, Access::kWrite, Where::kExplicit,
                    Coordination::kIndependent, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_at)

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_at_c", fh, Access::kWrite, Where::kExplicit,
                    Coordination::kIndependent, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_at_c)

int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                         MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_all", fh, Access::kWrite, Where::kIndividual,
                    Coordination::kCollective, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_all)

int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_all_c", fh, Access::kWrite, Where::kIndividual,
                    Coordination::kCollective, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_all_c)

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                            MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_at_all", fh, Access::kWrite, Where::kExplicit,
                    Coordination::kCollective, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_at_all)

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_at_all_c", fh, Access::kWrite, Where::kExplicit,
                    Coordination::kCollective, offset, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_at_all_c)

int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_shared", fh, Access::kWrite, Where::kShared,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_shared)

int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request* request) {
  return iaccess_as("MPI_File_iwrite_shared_c", fh, Access::kWrite, Where::kShared,
                    Coordination::kIndependent, 0, buf, count, datatype, request);
}
WEFT_MPI_ALIAS(File_iwrite_shared_c)

}  // extern "C"

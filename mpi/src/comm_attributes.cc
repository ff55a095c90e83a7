// What a communicator says about itself beyond its rank and size: its name
// (MPI_Comm_set_name, MPI_Comm_get_name), the values of the standard's predefined
// attributes (MPI_TAG_UB and the rest, which MPI_Comm_get_attr in keyvals.cc answers
// with) and whether it is an intercommunicator (never: weft has none).
#include <climits>
#include <cstring>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/keyvals.h"
#include "mpi/src/objects.h"
#include "mpi/src/user_errors.h"

using weft::mpi::comm_of;
using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

// The attribute values live here: MPI_Comm_get_attr hands out pointers to them.
struct PredefinedAttributes {
  int tag_ub = INT_MAX;  // the core takes every tag >= 0 that an int holds
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;                // every process may do language-standard I/O
  int wtime_is_global = 0;                // MPI_Wtime is each host's own monotonic clock
  int universe_size = 0;                  // the world's size: no process can be spawned
  int last_used_code = MPI_ERR_LASTCODE;  // grows with MPI_Add_error_class and _code
};

PredefinedAttributes& attributes() {
  static PredefinedAttributes values;
  values.universe_size = weft::mpi::library().world.group.size();
  values.last_used_code = weft::mpi::last_used_error_code();
  return values;
}

}  // namespace

namespace weft::mpi {

bool predefined_comm_attribute(int keyval, void** value) {
  PredefinedAttributes& values = attributes();
  switch (keyval) {
    case MPI_TAG_UB:
      *value = &values.tag_ub;
      return true;
    case MPI_HOST:
      *value = &values.host;
      return true;
    case MPI_IO:
      *value = &values.io;
      return true;
    case MPI_WTIME_IS_GLOBAL:
      *value = &values.wtime_is_global;
      return true;
    case MPI_UNIVERSE_SIZE:
      *value = &values.universe_size;
      return true;
    case MPI_LASTUSEDCODE:
      *value = &values.last_used_code;
      return true;
    case MPI_APPNUM:
      *value = nullptr;  // set only for MPMD jobs, which weftrun does not start
      return true;
    default:
      return false;
  }
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return mpi_call("MPI_Comm_set_name", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_set_name");
    MPI_ABI_Comm& c = comm_of(comm);
    require_pointer(comm_name, "comm_name");
    c.given_name = std::string(comm_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    c.name = c.given_name;  // error messages name it so too
  });
}
WEFT_MPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return mpi_call("MPI_Comm_get_name", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_get_name");
    require_pointer(comm_name, "comm_name");
    require_pointer(resultlen, "resultlen");
    // The null handle has a name too (MPI-4.1), as the predefined communicators do.
    std::string name =
        comm == MPI_COMM_NULL ? std::string("MPI_COMM_NULL") : comm_of(comm).given_name;
    std::memcpy(comm_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
  });
}
WEFT_MPI_ALIAS(Comm_get_name)

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return mpi_call("MPI_Comm_test_inter", comm, [&] {
    weft::mpi::require_initialized("MPI_Comm_test_inter");
    const MPI_ABI_Comm& c = comm_of(comm);
    require_pointer(flag, "flag");
    *flag = c.inter ? 1 : 0;
  });
}
WEFT_MPI_ALIAS(Comm_test_inter)

}  // extern "C"

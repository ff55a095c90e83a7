// User data representations (MPI_Register_datarep). weft's files hold data as it is in
// memory, so a registered representation is usable in a view only when it is that
// too: no conversion functions, and the file extent of the view's etype is its extent
// in memory. Views with conversions are refused (MPI_ERR_UNSUPPORTED_DATAREP).
#include <map>
#include <mutex>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/derived_types.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/files.h"
#include "mpi/src/objects.h"

namespace weft::mpi {

namespace {

struct Datarep {
  bool converts = false;  // a read or write conversion function was given
  MPI_Datarep_extent_function* extent_fn = nullptr;
  void* extra_state = nullptr;
};

std::mutex registry_mutex;
std::map<std::string, Datarep>& registry() {
  static auto* reps = new std::map<std::string, Datarep>();
  return *reps;
}

void register_datarep(const char* name, bool converts, MPI_Datarep_extent_function* extent_fn,
                      void* extra_state) {
  require_initialized("MPI_Register_datarep");
  require_pointer(name, "datarep");
  if (extent_fn == nullptr) throw MpiError(MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
  std::string key = name;
  if (key.empty() || key.size() >= MPI_MAX_DATAREP_STRING) {
    throw MpiError(MPI_ERR_ARG, "datarep is empty or longer than MPI_MAX_DATAREP_STRING - 1");
  }
  std::lock_guard lock(registry_mutex);
  if (key == "native" || key == "internal" || key == "external32" || registry().count(key)) {
    throw MpiError(MPI_ERR_DUP_DATAREP, "datarep \"" + key + "\" is already defined");
  }
  registry()[key] = Datarep{converts, extent_fn, extra_state};
}

}  // namespace

void check_registered_datarep(const std::string& name, MPI_Datatype etype) {
  Datarep rep;
  {
    std::lock_guard lock(registry_mutex);
    auto it = registry().find(name);
    if (it == registry().end()) {
      throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                     "datarep \"" + name + "\" is neither \"native\", \"internal\" nor registered");
    }
    rep = it->second;
  }
  if (rep.converts) {
    throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datarep \"" + name + "\" has conversion functions, which weft does not call");
  }
  const auto& map = typemap_of(etype, "etype");
  if (!map->uniform_basic_type) {
    throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datarep \"" + name + "\" with an etype of mixed basic types");
  }
  MPI_Aint extent = 0;
  int code = rep.extent_fn(*map->uniform_basic_type, &extent, rep.extra_state);
  if (code != MPI_SUCCESS) throw MpiError(code, "the datarep's extent function failed");
  if (extent != typemap_of(*map->uniform_basic_type)->extent) {
    throw MpiError(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datarep \"" + name +
                       "\" gives the etype's elements a file extent other "
                       "than their extent in memory");
  }
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return weft::mpi::file_call("MPI_Register_datarep", MPI_FILE_NULL, [&] {
    weft::mpi::register_datarep(datarep,
                                read_conversion_fn != MPI_CONVERSION_FN_NULL ||
                                    write_conversion_fn != MPI_CONVERSION_FN_NULL,
                                dtype_file_extent_fn, extra_state);
  });
}
WEFT_MPI_ALIAS(Register_datarep)

int PMPI_Register_datarep_c(const char* datarep,
                            MPI_Datarep_conversion_function_c* read_conversion_fn,
                            MPI_Datarep_conversion_function_c* write_conversion_fn,
                            MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return weft::mpi::file_call("MPI_Register_datarep_c", MPI_FILE_NULL, [&] {
    weft::mpi::register_datarep(datarep,
                                read_conversion_fn != MPI_CONVERSION_FN_NULL_C ||
                                    write_conversion_fn != MPI_CONVERSION_FN_NULL_C,
                                dtype_file_extent_fn, extra_state);
  });
}
WEFT_MPI_ALIAS(Register_datarep_c)

}  // extern "C"

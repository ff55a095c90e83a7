// Error classes, codes and strings: MPI_Error_string and MPI_Error_class for every code,
// and the program's own classes and codes (MPI_Add_error_class, MPI_Add_error_code,
// MPI_Add_error_string and their MPI 4.1 removals). A class the program adds is its own
// first code, as the standard's classes are; its codes belong to it.
#include "mpi/src/user_errors.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;
using weft::mpi::require_pointer;

namespace {

struct UserError {
  int error_class;                  // itself for a class
  std::optional<std::string> text;  // MPI_Add_error_string's
};

struct Registry {
  std::mutex mutex;
  int last_used = MPI_ERR_LASTCODE;
  std::map<int, UserError> errors;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: see abort_process
  return *r;
}

// Called with the lock held.
UserError& user_error(Registry& r, int code, const char* what) {
  auto it = r.errors.find(code);
  if (it == r.errors.end()) {
    throw MpiError(MPI_ERR_ARG, std::string(what) + " " + std::to_string(code) +
                                    " is not one the program added");
  }
  return it->second;
}

int add_code(int error_class) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  int code = ++r.last_used;
  r.errors[code] = UserError{error_class == -1 ? code : error_class, std::nullopt};
  return code;
}

// The standard's classes, MPI_SUCCESS left out.
bool is_predefined_class(int code) { return code > MPI_SUCCESS && code <= MPI_ERR_ABI; }

void copy_string(const std::string& text, char* out, int* length) {
  size_t n = std::min(text.size(), static_cast<size_t>(MPI_MAX_ERROR_STRING - 1));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *length = static_cast<int>(n);
}

}  // namespace

namespace weft::mpi {

int last_used_error_code() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.last_used;
}

const char* user_error_text(int code) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.errors.find(code);
  if (it == r.errors.end()) return nullptr;
  return it->second.text ? it->second.text->c_str() : "";
}

int user_error_class(int code) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.errors.find(code);
  return it == r.errors.end() ? -1 : it->second.error_class;
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  // The text is copied under the registry's lock: a removal cannot pull it away.
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.errors.find(errorcode);
    if (it != r.errors.end()) {
      copy_string(it->second.text.value_or(""), string, resultlen);
      return MPI_SUCCESS;
    }
  }
  const char* text = weft::mpi::error_text(errorcode);
  if (text == nullptr) {
    copy_string("unknown error code " + std::to_string(errorcode), string, resultlen);
    return MPI_ERR_ARG;
  }
  copy_string(text, string, resultlen);
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Error_string)

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (errorclass == nullptr) return MPI_ERR_ARG;
  int user_class = weft::mpi::user_error_class(errorcode);
  if (user_class != -1) {
    *errorclass = user_class;
    return MPI_SUCCESS;
  }
  if (weft::mpi::error_text(errorcode) == nullptr) return MPI_ERR_ARG;
  *errorclass = errorcode;  // weft's own error codes are the classes
  return MPI_SUCCESS;
}
WEFT_MPI_ALIAS(Error_class)

int PMPI_Add_error_class(int* errorclass) {
  return mpi_call("MPI_Add_error_class", MPI_COMM_WORLD, [&] {
    require_pointer(errorclass, "errorclass");
    *errorclass = add_code(-1);
  });
}
WEFT_MPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return mpi_call("MPI_Add_error_code", MPI_COMM_WORLD, [&] {
    require_pointer(errorcode, "errorcode");
    if (!is_predefined_class(errorclass) && weft::mpi::user_error_class(errorclass) != errorclass) {
      throw MpiError(MPI_ERR_ARG,
                     "errorclass " + std::to_string(errorclass) + " is not an error class");
    }
    *errorcode = add_code(errorclass);
  });
}
WEFT_MPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char* string) {
  return mpi_call("MPI_Add_error_string", MPI_COMM_WORLD, [&] {
    require_pointer(string, "string");
    size_t length = std::strlen(string);
    if (length > MPI_MAX_ERROR_STRING - 1) {
      throw MpiError(MPI_ERR_ARG, "the string is " + std::to_string(length) +
                                      " characters long, more than MPI_MAX_ERROR_STRING - 1");
    }
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    user_error(r, errorcode, "errorcode").text = string;
  });
}
WEFT_MPI_ALIAS(Add_error_string)

int PMPI_Remove_error_string(int errorcode) {
  return mpi_call("MPI_Remove_error_string", MPI_COMM_WORLD, [&] {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    user_error(r, errorcode, "errorcode").text.reset();
  });
}
WEFT_MPI_ALIAS(Remove_error_string)

// A code or class goes only once nothing hangs on it: its string removed first, and a
// class's codes.
int PMPI_Remove_error_code(int errorcode) {
  return mpi_call("MPI_Remove_error_code", MPI_COMM_WORLD, [&] {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    UserError& e = user_error(r, errorcode, "errorcode");
    if (e.error_class == errorcode) {
      throw MpiError(MPI_ERR_ARG, "errorcode " + std::to_string(errorcode) +
                                      " is an error class: MPI_Remove_error_class removes it");
    }
    if (e.text) {
      throw MpiError(MPI_ERR_ARG, "errorcode " + std::to_string(errorcode) +
                                      " still has a string (MPI_Remove_error_string first)");
    }
    r.errors.erase(errorcode);
  });
}
WEFT_MPI_ALIAS(Remove_error_code)

int PMPI_Remove_error_class(int errorclass) {
  return mpi_call("MPI_Remove_error_class", MPI_COMM_WORLD, [&] {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    UserError& e = user_error(r, errorclass, "errorclass");
    if (e.error_class != errorclass) {
      throw MpiError(MPI_ERR_ARG, "errorclass " + std::to_string(errorclass) +
                                      " is an error code: MPI_Remove_error_code removes it");
    }
    if (e.text) {
      throw MpiError(MPI_ERR_ARG, "errorclass " + std::to_string(errorclass) +
                                      " still has a string (MPI_Remove_error_string first)");
    }
    for (const auto& [code, other] : r.errors) {
      if (code != errorclass && other.error_class == errorclass) {
        throw MpiError(MPI_ERR_ARG, "errorclass " + std::to_string(errorclass) +
                                        " still has error code " + std::to_string(code));
      }
    }
    r.errors.erase(errorclass);
  });
}
WEFT_MPI_ALIAS(Remove_error_class)

}  // extern "C"

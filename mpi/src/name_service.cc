// The name service: MPI_Publish_name, MPI_Unpublish_name, MPI_Lookup_name. A published
// name is a file in the job's directory (mpi/src/connections.h) holding the port name,
// so its scope is the job's processes that share that directory: those of one host, or
// of every host when $TMPDIR is one shared file system. Creating the file refuses an
// existing name, so of two processes publishing one name at once exactly one succeeds.
// A process unpublishes what it left published at MPI_Finalize.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "mpi/src/arguments.h"
#include "mpi/src/connections.h"
#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/info.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// File names allow any service name: bytes other than letters, digits, '-' and '_'
// become %XX.
constexpr size_t kMaxFileName = 250;

std::string file_of(const std::string& service) {
  std::string name = "name.";
  static const char kHex[] = "0123456789abcdef";
  for (unsigned char ch : service) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
        ch == '-' || ch == '_') {
      name += static_cast<char>(ch);
    } else {
      name += '%';
      name += kHex[ch >> 4];
      name += kHex[ch & 15];
    }
  }
  if (name.size() > kMaxFileName) {
    throw MpiError(MPI_ERR_ARG, "service_name \"" + service.substr(0, 40) +
                                    "...\" is too long for weft's name service");
  }
  return name;
}

struct Published {
  std::mutex mutex;
  std::map<std::string, std::string> names;  // service name -> port name
};

Published& published() {
  static Published state;
  return state;
}

std::string port_argument(const char* port_name) {
  weft::mpi::require_pointer(port_name, "port_name");
  size_t length = strnlen(port_name, MPI_MAX_PORT_NAME);
  if (length == MPI_MAX_PORT_NAME) {
    throw MpiError(MPI_ERR_ARG, "port_name is not a string of under MPI_MAX_PORT_NAME chars");
  }
  return std::string(port_name, length);
}

}  // namespace

namespace weft::mpi {

void unpublish_names_at_finalize() {
  Published& p = published();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (const auto& [service, port] : p.names) {
    // Only if it still holds this process's port: another may have republished it.
    if (read_job_file(file_of(service)) == port) remove_job_file(file_of(service));
  }
  p.names.clear();
}

}  // namespace weft::mpi

extern "C" {

int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return mpi_call("MPI_Publish_name", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Publish_name");
    weft::mpi::require_pointer(service_name, "service_name");
    weft::mpi::hints_of(info);  // no hints apply; checks the handle
    std::string port = port_argument(port_name);
    std::string file = file_of(service_name);
    Published& p = published();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!weft::mpi::create_job_file(file, port)) {
      throw MpiError(MPI_ERR_SERVICE,
                     std::string("service_name \"") + service_name + "\" is published already");
    }
    p.names[service_name] = port;
  });
}
WEFT_MPI_ALIAS(Publish_name)

int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  return mpi_call("MPI_Unpublish_name", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Unpublish_name");
    weft::mpi::require_pointer(service_name, "service_name");
    weft::mpi::hints_of(info);
    std::string port = port_argument(port_name);
    std::string file = file_of(service_name);
    Published& p = published();
    std::lock_guard<std::mutex> lock(p.mutex);
    std::optional<std::string> found = weft::mpi::read_job_file(file);
    if (!found) {
      throw MpiError(MPI_ERR_SERVICE,
                     std::string("service_name \"") + service_name + "\" is not published");
    }
    if (*found != port) {
      throw MpiError(MPI_ERR_SERVICE, std::string("service_name \"") + service_name +
                                          "\" is published with another port_name");
    }
    weft::mpi::remove_job_file(file);
    p.names.erase(service_name);
  });
}
WEFT_MPI_ALIAS(Unpublish_name)

int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  return mpi_call("MPI_Lookup_name", MPI_COMM_SELF, [&] {
    weft::mpi::require_initialized("MPI_Lookup_name");
    weft::mpi::require_pointer(service_name, "service_name");
    weft::mpi::hints_of(info);
    weft::mpi::require_pointer(port_name, "port_name");
    std::optional<std::string> found = weft::mpi::read_job_file(file_of(service_name));
    if (!found) {
      throw MpiError(MPI_ERR_NAME,
                     std::string("service_name \"") + service_name + "\" is not published");
    }
    size_t n = std::min(found->size(), static_cast<size_t>(MPI_MAX_PORT_NAME - 1));
    std::memcpy(port_name, found->data(), n);
    port_name[n] = '\0';
  });
}
WEFT_MPI_ALIAS(Lookup_name)

}  // extern "C"

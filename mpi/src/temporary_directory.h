// Where the MPI layer keeps the files processes share beside their data: $TMPDIR, else
// /tmp (the job's name service and ports, a shared file pointer that cannot live beside
// its file).
#pragma once

#include <cstdlib>
#include <string>

namespace weft::mpi {

inline std::string temporary_directory() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace weft::mpi

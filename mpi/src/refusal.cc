// The refusal of a function the standard defines and weft does not carry out here.
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "mpi/src/errors.h"
#include "mpi/src/objects.h"

namespace weft::mpi {
namespace {

// Says why `function` refused, the first time it does in this process.
void explain_once(const char* function, const char* why) {
  static std::mutex mutex;
  static std::set<std::string> explained;
  std::lock_guard<std::mutex> lock(mutex);
  if (!explained.insert(function).second) return;
  std::fprintf(stderr, "weft MPI: %s (rank %d) is not supported: %s (docs/MPI.md)\n", function,
               world_rank_or_unknown(), why);
}

}  // namespace

int refuse(const char* function, int error_class, MPI_Comm comm, const char* why) {
  int code = handle_error(comm, function, error_class,
                          std::string("not supported: ") + why + " (docs/MPI.md)");
  explain_once(function, why);
  return code;
}

}  // namespace weft::mpi

#include "tests/transport/ib/hidden_libibverbs.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>

namespace weft::testing {
namespace {

// The file the dynamic loader opens for libibverbs.so.1, or "" when it opens none.
std::string libibverbs_file() {
  void* handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return "";
  link_map* map = nullptr;
  std::string file;
  char real[PATH_MAX];
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && realpath(map->l_name, real) != nullptr) {
    file = real;
  }
  dlclose(handle);
  return file;
}

}  // namespace

std::string without_libibverbs(const std::string& command) {
  const std::string file = libibverbs_file();
  if (file.empty()) return command;
  if (std::system("unshare --mount true >/dev/null 2>&1") != 0) return "";
  return "unshare --mount sh -c 'mount --bind /dev/null " + file + " && " + command + "'";
}

}  // namespace weft::testing

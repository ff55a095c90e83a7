// Running a command where libibverbs.so.1 cannot be loaded, as on a host without
// rdma-core: in a private mount namespace, the library's file is covered by /dev/null,
// which nothing outside the command sees. Needs root.
#pragma once

#include <string>

namespace weft::testing {

// A shell command that runs `command` so; `command` itself where the library is not
// installed; "" where a mount namespace cannot be made (the caller skips).
std::string without_libibverbs(const std::string& command);

}  // namespace weft::testing

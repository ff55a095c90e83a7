#include "core/init/transports.h"

#include <sstream>

#include "core/base/env.h"
#include "weft/error.h"

namespace weft::core {

void check_backend(const std::string& backend) {
  if (backend != "auto" && backend != "tcp") {
    throw InvalidArgument("init_process_group: backend '" + backend +
                          "' is not supported; use 'auto' (best transport per peer) or 'tcp'");
  }
  auto list = env::get("WEFT_TRANSPORTS");
  if (!list) return;
  bool tcp = false;
  std::stringstream in(*list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == "tcp") {
      tcp = true;
    } else if (!name.empty()) {
      throw InvalidArgument("WEFT_TRANSPORTS=" + *list + ": unknown transport '" + name +
                            "' (this build has: tcp)");
    }
  }
  if (!tcp) {
    throw InvalidArgument("WEFT_TRANSPORTS=" + *list +
                          " leaves no transport to reach peers with (this build has: tcp)");
  }
}

}  // namespace weft::core

#include "runtime/init/transports.h"

#include <sstream>

#include "base/env.h"
#include "weft/error.h"

namespace weft::runtime {

TransportChoice select_transports(const std::string& backend) {
  TransportChoice choice;
  if (backend == "tcp") {
    choice.shm = false;
    choice.setting = "backend 'tcp'";
  } else if (backend != "auto") {
    throw InvalidArgument("init_process_group: backend '" + backend +
                          "' is not supported; use 'auto' (best transport per peer) or 'tcp'");
  }
  auto list = base::env::get("WEFT_TRANSPORTS");
  if (!list) return choice;
  bool tcp = false, shm = false;
  std::stringstream in(*list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == "tcp") {
      tcp = true;
    } else if (name == "shm") {
      shm = true;
    } else if (!name.empty()) {
      throw InvalidArgument("WEFT_TRANSPORTS=" + *list + ": unknown transport '" + name +
                            "' (this build has: shm, tcp)");
    }
  }
  choice.tcp = choice.tcp && tcp;
  choice.shm = choice.shm && shm;
  choice.setting = "WEFT_TRANSPORTS=" + *list + (backend == "tcp" ? " with backend 'tcp'" : "");
  if (!choice.tcp && !choice.shm) {
    throw InvalidArgument(choice.setting +
                          " leaves no transport to reach peers with (this build has: shm, tcp)");
  }
  return choice;
}

}  // namespace weft::runtime

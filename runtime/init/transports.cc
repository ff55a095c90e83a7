#include "runtime/init/transports.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/env.h"
#include "base/log.h"
#include "weft/error.h"

namespace weft::runtime {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The names torch.distributed's programs pass; each means weft's own transports, as
// "auto" does, so such a program runs unchanged.
bool is_compatible_name(const std::string& name) {
  return name == "gloo" || name == "mpi" || name == "nccl";
}

std::string chosen(const TransportChoice& choice) {
  std::string names;
  if (choice.shm) names = "shm";
  if (choice.tcp) names += names.empty() ? "tcp" : ", tcp";
  return names;
}

}  // namespace

TransportChoice select_transports(const std::string& backend) {
  TransportChoice choice;
  const std::string name = lowercase(backend);
  if (name == "tcp") {
    choice.shm = false;
    choice.setting = "backend 'tcp'";
  } else if (name != "auto" && !is_compatible_name(name)) {
    throw InvalidArgument("init_process_group: backend '" + backend +
                          "' is not supported; use 'auto' (best transport per peer), 'tcp' "
                          "(TCP only), or 'gloo', 'mpi' or 'nccl' (each meaning 'auto'); "
                          "case does not matter");
  }
  auto list = base::env::get("WEFT_TRANSPORTS");
  if (list) {
    bool tcp = false, shm = false;
    std::stringstream in(*list);
    std::string transport;
    while (std::getline(in, transport, ',')) {
      if (transport == "tcp") {
        tcp = true;
      } else if (transport == "shm") {
        shm = true;
      } else if (!transport.empty()) {
        throw InvalidArgument("WEFT_TRANSPORTS=" + *list + ": unknown transport '" + transport +
                              "' (this build has: shm, tcp)");
      }
    }
    choice.tcp = choice.tcp && tcp;
    choice.shm = choice.shm && shm;
    choice.setting = "WEFT_TRANSPORTS=" + *list + (name == "tcp" ? " with backend 'tcp'" : "");
    if (!choice.tcp && !choice.shm) {
      throw InvalidArgument(choice.setting +
                            " leaves no transport to reach peers with (this build has: shm, tcp)");
    }
  }
  WEFT_LOG(INFO) << "backend \"" << backend << "\": using "
                 << (name == "tcp" ? "TCP only" : "weft's own transports") << " (" << chosen(choice)
                 << ")" << (list ? " as WEFT_TRANSPORTS=" + *list + " allows" : "");
  return choice;
}

}  // namespace weft::runtime

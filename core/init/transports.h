// Which transports a process may use: the backend argument of init_process_group and
// WEFT_TRANSPORTS (a comma-separated list) both restrict the choice. This build knows
// one transport, tcp.
#pragma once

#include <string>

namespace weft::core {

// InvalidArgument for an unknown backend, an unknown name in WEFT_TRANSPORTS, or a
// selection that leaves no transport to reach peers with.
void check_backend(const std::string& backend);

}  // namespace weft::core

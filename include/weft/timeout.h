// Timeouts. Every blocking weft call has a deadline: the per-call timeout when one is
// given, else the default of the process group (init_process_group's timeout argument,
// else WEFT_TIMEOUT seconds, else 300 s).
#pragma once

#include <chrono>

namespace weft {

using Timeout = std::chrono::milliseconds;

// "Use the process group's default timeout."
inline constexpr Timeout kDefaultTimeout{-1};

}  // namespace weft

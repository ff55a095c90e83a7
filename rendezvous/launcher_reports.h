// What a rank tells the launcher that hosts its job's store (weftrun, with
// WEFT_LAUNCHER_STORE=1), under keys outside every group's namespace.
//
// A rank whose blocking wait times out posts the world rank it was waiting for before
// the error reaches the program. Whatever the program then does with the error (prints
// it or not, exits or hangs on), the launcher can tell a rank that stopped responding
// from the ranks that timed out waiting for it: the one waited for, that never timed
// out or failed by itself, is the job's root cause.
#pragma once

#include <optional>
#include <string>

namespace weft::rendezvous {

inline const std::string kTimedOutWaitingPrefix = "weft.launcher/timed_out_waiting_for/";

// The key under which world rank `rank` posts the rank it timed out waiting for.
inline std::string timed_out_waiting_key(int rank) {
  return kTimedOutWaitingPrefix + std::to_string(rank);
}

// The rank a value posted under timed_out_waiting_key names; nullopt for anything else.
inline std::optional<int> parse_waited_for(const std::string& value) {
  if (value.empty() || value.size() > 9) return std::nullopt;
  int rank = 0;
  for (char ch : value) {
    if (ch < '0' || ch > '9') return std::nullopt;
    rank = rank * 10 + (ch - '0');
  }
  return rank;
}

}  // namespace weft::rendezvous

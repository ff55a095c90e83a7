// LinkFailure: the failure state every link keeps. A link fails once (the first reason
// sticks), reports it to its handler once, and refuses sends from then on; a link closed
// on purpose counts as failed with nothing to report.
#pragma once

#include <string>

#include "transport/link.h"
#include "weft/error.h"

namespace weft::transport {

struct LinkFailure {
  bool failed = false;
  bool reported = false;
  std::string why;

  void set(const std::string& reason) {
    if (failed) return;
    failed = true;
    why = reason;
  }
  void report(LinkHandler& handler, int peer) {
    if (failed && !reported) {
      reported = true;
      handler.on_link_failed(peer, why);
    }
  }
  void close() {
    failed = reported = true;
    why = "closed";
  }
  // For a send on the link to `peer`.
  void throw_if_failed(int peer) const {
    if (failed)
      throw Error(ErrorCode::kPeer, "link to rank " + std::to_string(peer) + " has failed: " + why);
  }
};

}  // namespace weft::transport

#include "weft/error.h"

namespace weft {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kPeer:
      return "peer error";
    case ErrorCode::kDesync:
      return "desynchronised ranks";
    case ErrorCode::kState:
      return "invalid state";
  }
  return "unknown error";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

InvalidArgument::InvalidArgument(const std::string& message)
    : Error(ErrorCode::kInvalidArgument, message) {}

TimeoutError::TimeoutError(const std::string& message) : Error(ErrorCode::kTimeout, message) {}

PeerError::PeerError(int peer, const std::string& message)
    : Error(ErrorCode::kPeer, message), peer_(peer) {}

DesyncError::DesyncError(const std::string& message) : Error(ErrorCode::kDesync, message) {}

}  // namespace weft

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

Error::Error(ErrorCode code, const std::string& message, int peer)
    : std::runtime_error(message), code_(code), peer_(peer) {}

void Error::rethrow_with_context(const std::string& context) const {
  throw_error(code_, context + ": " + what(), peer_);
}

void throw_error(ErrorCode code, const std::string& message, int peer) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      throw InvalidArgument(message);
    case ErrorCode::kTimeout:
      throw TimeoutError(message);
    case ErrorCode::kPeer:
      throw PeerError(peer, message);
    case ErrorCode::kDesync:
      throw DesyncError(message);
    case ErrorCode::kInternal:
    case ErrorCode::kState:
      break;
  }
  throw Error(code, message);
}

InvalidArgument::InvalidArgument(const std::string& message)
    : Error(ErrorCode::kInvalidArgument, message) {}

TimeoutError::TimeoutError(const std::string& message) : Error(ErrorCode::kTimeout, message) {}

PeerError::PeerError(int peer, const std::string& message)
    : Error(ErrorCode::kPeer, message, peer) {}

DesyncError::DesyncError(const std::string& message) : Error(ErrorCode::kDesync, message) {}

}  // namespace weft

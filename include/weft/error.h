// Errors weft reports. Every failure is an exception derived from weft::Error whose
// message names the operation, the rank that reports it and the argument or peer at
// fault, e.g. "recv (rank 1, world): message from rank 0 has 4096 bytes but the
// receive buffer holds 1024". Nothing is retried behind the caller's back.
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

enum class ErrorCode {
  kInternal,         // a bug in weft, or a failure of the operating system
  kInvalidArgument,  // the caller passed something weft cannot use
  kTimeout,          // a deadline passed before the operation finished
  kPeer,             // a peer process died, left, or broke the protocol
  kDesync,           // ranks disagree about what operation they are in
  kState,            // the call is not allowed now (e.g. before init_process_group)
};

const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }
  // For a PeerError, the world rank of the peer at fault; -1 for every other error.
  int culprit() const noexcept { return peer_; }

  // Throws an error of this one's kind (its code, its class and, for a PeerError, its
  // peer) whose message is `context + ": " + what()`: how a caller adds what it was
  // doing to a failure from below without losing what kind of failure it is.
  [[noreturn]] void rethrow_with_context(const std::string& context) const;

 protected:
  Error(ErrorCode code, const std::string& message, int peer);

 private:
  ErrorCode code_;
  int peer_ = -1;
};

// Throws the Error of `code`'s class: InvalidArgument, TimeoutError, PeerError (naming
// `peer`), DesyncError, or a plain Error for the other codes.
[[noreturn]] void throw_error(ErrorCode code, const std::string& message, int peer = -1);

class InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& message);
};

class TimeoutError : public Error {
 public:
  explicit TimeoutError(const std::string& message);
};

// A peer failed: it exited, was killed, closed its connection, or sent garbage.
// peer() is its rank in the world group.
class PeerError : public Error {
 public:
  PeerError(int peer, const std::string& message);
  int peer() const noexcept { return culprit(); }
};

class DesyncError : public Error {
 public:
  explicit DesyncError(const std::string& message);
};

}  // namespace weft

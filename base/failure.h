// Failure: why something that reports rather than throws did not work. The paths that
// must not throw (a link failing inside its progress, a copy that the kernel refused, a
// receive that cannot take a message) return or keep one; whoever can throw turns it
// into the weft::Error of its code. A default-constructed Failure means success; once
// set, the first reason sticks.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "weft/error.h"

namespace weft::base {

class Failure {
 public:
  Failure() = default;
  Failure(ErrorCode code, std::string why, int peer = -1)
      : failed_(true), code_(code), why_(std::move(why)), peer_(peer) {}

  bool failed() const { return failed_; }
  explicit operator bool() const { return failed_; }
  ErrorCode code() const { return code_; }
  const std::string& why() const { return why_; }
  int peer() const { return peer_; }  // the world rank at fault, for kPeer; else -1

  // Records a failure unless one is recorded already.
  void set(ErrorCode code, std::string why, int peer = -1) {
    if (!failed_) *this = Failure(code, std::move(why), peer);
  }

  // The Error of this failure's code, its message `context + ": " + why()` (just
  // why() when `context` is empty).
  [[noreturn]] void raise(const std::string& context = "") const {
    throw_error(code_, context.empty() ? why_ : context + ": " + why_, peer_);
  }
  std::exception_ptr as_exception(const std::string& context = "") const {
    try {
      raise(context);
    } catch (...) {
      return std::current_exception();
    }
  }

 private:
  bool failed_ = false;
  ErrorCode code_ = ErrorCode::kInternal;
  std::string why_;
  int peer_ = -1;
};

// The failure an exception describes: a weft::Error's code, message and culprit, or an
// internal error for anything else.
inline Failure failure_of(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) {
    return Failure(error->code(), error->what(), error->culprit());
  }
  return Failure(ErrorCode::kInternal, e.what());
}

}  // namespace weft::base

#include "transport/shm/cma.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace weft::transport::shm {
namespace {

// Linux copies at most this much per call.
constexpr size_t kMaxCall = 0x7ffff000;

}  // namespace

base::Failure cma_read(pid_t pid, void* local, uint64_t remote, size_t bytes) {
  auto* to = static_cast<char*>(local);
  while (bytes > 0) {
    size_t want = bytes < kMaxCall ? bytes : kMaxCall;
    iovec l{to, want};
    iovec r{reinterpret_cast<void*>(remote), want};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {ErrorCode::kInternal, std::strerror(errno)};
    }
    if (n == 0) return {ErrorCode::kInternal, "the peer's memory ended early"};
    to += n;
    remote += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
  return {};
}

base::Failure cma_probe(pid_t pid, uint64_t address, uint64_t expected) {
  uint64_t value = 0;
  base::Failure failure = cma_read(pid, &value, address, sizeof value);
  if (failure) return {ErrorCode::kInternal, "process_vm_readv: " + failure.why()};
  if (value != expected) {
    return {ErrorCode::kInternal,
            "process_vm_readv read another process (pid reused or a different PID namespace)"};
  }
  return {};
}

}  // namespace weft::transport::shm

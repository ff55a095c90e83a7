#include "tests/transport/ib/soft_verbs/remote_memory.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

namespace weft::testing::soft_verbs {
namespace {

size_t total_bytes(const std::vector<iovec>& ranges) {
  size_t total = 0;
  for (const iovec& r : ranges) total += r.iov_len;
  return total;
}

// Drops the first `bytes` of a list of ranges.
void advance(std::vector<iovec>& ranges, size_t& first, size_t bytes) {
  while (bytes > 0) {
    iovec& r = ranges[first];
    const size_t step = bytes < r.iov_len ? bytes : r.iov_len;
    r.iov_base = static_cast<char*>(r.iov_base) + step;
    r.iov_len -= step;
    bytes -= step;
    if (r.iov_len == 0) ++first;
  }
  while (first < ranges.size() && ranges[first].iov_len == 0) ++first;
}

// The kernel copies whole remote ranges only, and at most about 2 GiB a call; a short
// count is resumed where it stopped, and a range that faults then fails with EFAULT.
int copy(bool to_remote, pid_t pid, std::vector<iovec> local, std::vector<iovec> remote) {
  size_t left = total_bytes(remote);
  size_t local_first = 0;
  size_t remote_first = 0;
  advance(local, local_first, 0);
  advance(remote, remote_first, 0);
  while (left > 0) {
    const ssize_t moved =
        to_remote ? process_vm_writev(pid, local.data() + local_first, local.size() - local_first,
                                      remote.data() + remote_first, remote.size() - remote_first, 0)
                  : process_vm_readv(pid, local.data() + local_first, local.size() - local_first,
                                     remote.data() + remote_first, remote.size() - remote_first, 0);
    if (moved < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (moved == 0) return EFAULT;
    advance(local, local_first, static_cast<size_t>(moved));
    advance(remote, remote_first, static_cast<size_t>(moved));
    left -= static_cast<size_t>(moved);
  }
  return 0;
}

}  // namespace

int copy_to_process(pid_t pid, std::vector<iovec> local, std::vector<iovec> remote) {
  return copy(true, pid, std::move(local), std::move(remote));
}

int copy_from_process(pid_t pid, std::vector<iovec> local, std::vector<iovec> remote) {
  return copy(false, pid, std::move(local), std::move(remote));
}

PeerProcess::PeerProcess(pid_t pid) : pid_(pid) {
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ >= 0) fcntl(pidfd_, F_SETFD, FD_CLOEXEC);
}

PeerProcess& PeerProcess::operator=(PeerProcess&& other) noexcept {
  if (this != &other) {
    if (pidfd_ >= 0) close(pidfd_);
    pid_ = std::exchange(other.pid_, 0);
    pidfd_ = std::exchange(other.pidfd_, -1);
  }
  return *this;
}

PeerProcess::~PeerProcess() {
  if (pidfd_ >= 0) close(pidfd_);
}

bool PeerProcess::exited() const {
  if (pid_ <= 0) return true;
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
  }
  // Kernels before 5.3: gone, or a zombie ("pid (comm) Z ...").
  if (kill(pid_, 0) != 0 && errno == ESRCH) return true;
  const std::string path = "/proc/" + std::to_string(pid_) + "/stat";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char text[512] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  const std::string stat(text, n > 0 ? static_cast<size_t>(n) : 0);
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  const char state = stat[paren + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace weft::testing::soft_verbs

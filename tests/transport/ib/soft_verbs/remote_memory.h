// Reaching another process of the host as an adapter reaches its peer's memory: copying
// to and from it with process_vm_writev/readv, which the kernel permits where this
// process could ptrace the other (each process of the fabric declares any process its
// tracer, for Yama's ptrace_scope 1), and noticing that it has exited.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <vector>

namespace weft::testing::soft_verbs {

// 0, or the errno of the copy: EFAULT when a range is not mapped in its process, ESRCH
// when the other process is gone, EPERM when the kernel does not permit it.
int copy_to_process(pid_t pid, std::vector<iovec> local, std::vector<iovec> remote);
int copy_from_process(pid_t pid, std::vector<iovec> local, std::vector<iovec> remote);

// Watches a process through a pidfd, which reports its exit even while it is a zombie
// that nobody has reaped yet (kill(pid, 0) still succeeds then).
class PeerProcess {
 public:
  PeerProcess() = default;
  explicit PeerProcess(pid_t pid);
  PeerProcess(PeerProcess&& other) noexcept { *this = std::move(other); }
  PeerProcess& operator=(PeerProcess&& other) noexcept;
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;
  ~PeerProcess();

  pid_t pid() const { return pid_; }
  bool exited() const;

 private:
  pid_t pid_ = 0;
  int pidfd_ = -1;
};

}  // namespace weft::testing::soft_verbs

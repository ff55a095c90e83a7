// JobSignals: while one exists, SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD are blocked
// and arrive through a signalfd that the supervision loop polls with the ranks' pipes, so
// a signal never interrupts weftrun halfway through a line. SIGPIPE is ignored, so a
// closed stdout shows up as EPIPE and weftrun keeps supervising the ranks; SIGCHLD gets
// its default disposition, so exited ranks wait for waitpid().
//
// Construct it before any thread starts (the store server's): threads inherit the mask,
// and a forwarded signal delivered to a thread that leaves it unblocked would kill
// weftrun with its ranks still running.
#pragma once

#include <signal.h>

#include "base/socket.h"

namespace weft::weftrun {

class JobSignals {
 public:
  JobSignals();
  // Restores the mask and the dispositions of SIGPIPE and SIGCHLD.
  ~JobSignals();

  JobSignals(const JobSignals&) = delete;
  JobSignals& operator=(const JobSignals&) = delete;

  int fd() const { return fd_.get(); }
  // The next pending signal's number, or 0 when none is pending.
  int take();

  // What a rank must start with to see signals as if weftrun were not there: the mask
  // weftrun had before, and the dispositions weftrun changed reset to the default.
  const sigset_t& rank_signal_mask() const { return original_mask_; }
  const sigset_t& rank_default_signals() const { return rank_defaults_; }

  // SIGINT, SIGTERM, SIGHUP, SIGQUIT: the signals weftrun passes on to the ranks.
  static bool is_forwarded(int signal_number);

 private:
  sigset_t original_mask_;
  sigset_t rank_defaults_;
  struct sigaction original_sigpipe_;
  struct sigaction original_sigchld_;
  base::Fd fd_;
};

}  // namespace weft::weftrun

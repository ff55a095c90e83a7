#include "tools/weftrun/job_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "weft/error.h"

namespace weft::weftrun {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kForwarded) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  return set;
}

[[noreturn]] void fail(const char* what) {
  throw Error(ErrorCode::kInternal, std::string("weftrun: ") + what + ": " + std::strerror(errno));
}

}  // namespace

bool JobSignals::is_forwarded(int signal_number) {
  for (int s : kForwarded) {
    if (s == signal_number) return true;
  }
  return false;
}

JobSignals::JobSignals() {
  sigset_t handled = handled_signals();
  if (sigprocmask(SIG_BLOCK, &handled, &original_mask_) != 0) fail("sigprocmask");
  fd_ = base::Fd(signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd_) {
    sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
    fail("signalfd");
  }
  // Blocked signals' dispositions are untouched, and exec keeps them; only SIGPIPE's
  // may need resetting, and only when weftrun is the one that changed it.
  sigemptyset(&rank_defaults_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &original_sigpipe_);
  if (original_sigpipe_.sa_handler != SIG_IGN) sigaddset(&rank_defaults_, SIGPIPE);
  // An ignored SIGCHLD (inherited from whoever started weftrun) would have the kernel
  // reap the ranks behind weftrun's back, and waitpid() would never report them.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGCHLD, &default_action, &original_sigchld_);
}

JobSignals::~JobSignals() {
  sigaction(SIGCHLD, &original_sigchld_, nullptr);
  sigaction(SIGPIPE, &original_sigpipe_, nullptr);
  fd_.reset();
  sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
}

int JobSignals::take() {
  signalfd_siginfo info;
  for (;;) {
    ssize_t n = read(fd_.get(), &info, sizeof info);
    if (n == static_cast<ssize_t>(sizeof info)) return static_cast<int>(info.ssi_signo);
    if (n < 0 && errno == EINTR) continue;
    return 0;
  }
}

}  // namespace weft::weftrun

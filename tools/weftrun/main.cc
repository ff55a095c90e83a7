// weftrun: starts an N-rank weft job on this host. See options.h for the command line
// and launcher.h for how a job runs and ends.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/weftrun/launcher.h"
#include "tools/weftrun/options.h"
#include "weft/version.h"

namespace {

// A closed stdin, stdout or stderr would let a pipe land on 0, 1 or 2 and be clobbered
// when the rank's own descriptors are set up.
void ensure_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) == -1) {
      int opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (opened >= 0 && opened != fd) {
        dup2(opened, fd);
        close(opened);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using weft::weftrun::kUsageExitCode;
  ensure_standard_descriptors();
  std::vector<std::string> args(argv + 1, argv + argc);
  weft::weftrun::Options options;
  try {
    options = weft::weftrun::parse_options(args);
  } catch (const weft::weftrun::UsageError& e) {
    std::fprintf(stderr, "weftrun: %s\nTry 'weftrun --help' for more information.\n", e.what());
    return kUsageExitCode;
  }
  if (options.show_help) {
    std::fputs(weft::weftrun::usage_text().c_str(), stdout);
    return 0;
  }
  if (options.show_version) {
    std::printf("weftrun (weft) %s\n", weft::kVersion);
    return 0;
  }
  try {
    return weft::weftrun::run_job(options);
  } catch (const std::exception& e) {
    std::string message = e.what();
    if (message.rfind("weftrun: ", 0) != 0) message = "weftrun: " + message;
    std::fprintf(stderr, "%s\n", message.c_str());
    return 1;
  }
}

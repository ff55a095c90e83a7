#include "tools/weftrun/exit_report.h"

#include <sys/wait.h>

#include <cstring>
#include <vector>

namespace weft::weftrun {

std::string describe_signal(int signal_number) {
  const char* name = strsignal(signal_number);
  return std::to_string(signal_number) + " (" + (name ? name : "unknown signal") + ")";
}

std::string describe_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  }
  if (WIFSIGNALED(wait_status)) {
    std::string text = "was killed by signal " + describe_signal(WTERMSIG(wait_status));
    if (WCOREDUMP(wait_status)) text += " and dumped core";
    return text;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

int exit_status_with_code(int code) { return (code & 0xff) << 8; }

bool is_failure(int wait_status) { return exit_code_of(wait_status) != 0; }

std::string format_seconds(std::chrono::milliseconds duration) {
  auto ms = duration.count();
  std::string text = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string fraction = std::to_string(1000 + ms % 1000).substr(1);
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text;
}

std::string describe_first_failure(const FirstFailure& failure) {
  std::string text = "weftrun: " + failure.unit + " " + std::to_string(failure.rank);
  if (failure.pid < 0) {
    text += " could not be started";
  } else {
    text +=
        " (pid " + std::to_string(failure.pid) + ") " + describe_wait_status(failure.wait_status);
  }
  if (failure.world_size == 1) return text;
  text += " first";
  std::vector<std::string> others;
  if (failure.failed_after > 0) {
    others.push_back(std::to_string(failure.failed_after) + " other " + failure.unit +
                     "(s) failed after it");
  }
  if (failure.stopped > 0) {
    others.push_back(std::to_string(failure.stopped) + " other " + failure.unit +
                     "(s) were stopped");
  }
  if (others.empty()) others.push_back("the other " + failure.unit + "s exited successfully");
  for (size_t i = 0; i < others.size(); ++i) text += (i == 0 ? "; " : ", ") + others[i];
  return text;
}

}  // namespace weft::weftrun

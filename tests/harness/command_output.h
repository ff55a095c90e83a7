// Running a shell command from a test and keeping what it printed.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace weft::testing {

struct CommandOutput {
  int exit_code;     // -1 when the command could not start or did not exit normally
  std::string text;  // its standard output (redirect 2>&1 in the command for stderr)
};

inline CommandOutput run_command(const std::string& command) {
  CommandOutput out{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.text.append(buffer, n);
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace weft::testing

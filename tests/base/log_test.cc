// WEFT_LOG_LIMITED: a warning repeated in a loop reaches stderr once a second at most,
// and the next line that goes out says how many were held back.
#include "base/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

// What `body` writes to stderr.
template <typename Body>
std::string stderr_of(Body body) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const int saved = dup(STDERR_FILENO);
  dup2(fds[1], STDERR_FILENO);
  body();
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fds[0]);
  return text;
}

int lines_in(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

void warn_repeatedly(int times) {
  for (int i = 0; i < times; ++i) WEFT_LOG_LIMITED(WARN) << "the same trouble, number " << i;
}

TEST(LogLimited, OneLineASecondThenACountOfTheRest) {
  std::string first = stderr_of([] { warn_repeatedly(1000); });
  EXPECT_EQ(lines_in(first), 1) << first;
  EXPECT_NE(first.find("the same trouble, number 0"), std::string::npos) << first;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  std::string later = stderr_of([] { warn_repeatedly(1); });
  EXPECT_EQ(lines_in(later), 1) << later;
  EXPECT_NE(later.find("(and 999 more like it since the last one shown)"), std::string::npos)
      << later;
}

TEST(LogLimited, EachCallSiteHasItsOwnLimit) {
  std::string text = stderr_of([] {
    for (int i = 0; i < 10; ++i) {
      WEFT_LOG_LIMITED(WARN) << "site A";
      WEFT_LOG_LIMITED(WARN) << "site B";
    }
  });
  EXPECT_EQ(lines_in(text), 2) << text;
}

}  // namespace

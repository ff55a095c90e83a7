// The shape of a log line, with and without the rank a launcher may already show;
// first_time(), for lines said once per kind of event; WEFT_LOG_LIMITED: a warning
// repeated in a loop reaches stderr once a second at most, and the next line that goes
// out says how many were held back.
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

using weft::base::log::format_line;
using weft::base::log::Level;

TEST(LogFormat, ALineShowsHostPidRankLevelAndMessage) {
  const std::string self = [] {
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    return std::string(name) + ":" + std::to_string(getpid());
  }();
  EXPECT_EQ(format_line(Level::kInfo, 3, true, "hello"), self + " [3] weft INFO hello\n");
  EXPECT_EQ(format_line(Level::kWarn, -1, true, "early"), self + " [-] weft WARN early\n");
  EXPECT_EQ(format_line(Level::kTrace, 2, true, "again", 5),
            self + " [2] weft TRACE again (and 5 more like it since the last one shown)\n");
}

TEST(LogFormat, ARankTheLauncherShowsIsNotShownTwice) {
  // weftrun writes "[3] " before the line; the line itself leaves its rank out.
  std::string line = format_line(Level::kInfo, 3, false, "hello");
  EXPECT_EQ(line.find("[3]"), std::string::npos) << line;
  EXPECT_NE(line.find(" weft INFO hello\n"), std::string::npos) << line;
  EXPECT_EQ(line.find(' '), line.find(" weft INFO")) << line;  // "host:pid weft INFO ..."
}

TEST(LogFormat, FirstTimeIsTrueOncePerKey) {
  EXPECT_TRUE(weft::base::log::first_time("log_test/a"));
  EXPECT_FALSE(weft::base::log::first_time("log_test/a"));
  EXPECT_TRUE(weft::base::log::first_time("log_test/b"));
  EXPECT_FALSE(weft::base::log::first_time("log_test/a"));
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

#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace weft::base::log {
namespace {

Level parse_level() {
  const char* value = std::getenv("WEFT_DEBUG");
  if (value == nullptr || *value == '\0') return Level::kWarn;
  std::string v(value);
  for (auto& c : v) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  if (v == "NONE" || v == "OFF") return Level::kNone;
  if (v == "WARN") return Level::kWarn;
  if (v == "INFO") return Level::kInfo;
  if (v == "TRACE") return Level::kTrace;
  std::string warning = "weft WARN WEFT_DEBUG=" + std::string(value) +
                        " is not one of NONE, WARN, INFO, TRACE; using WARN\n";
  (void)!write(STDERR_FILENO, warning.data(), warning.size());
  return Level::kWarn;
}

std::atomic<int> g_rank{-1};

const std::string& host_name() {
  static const std::string host = [] {
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    return std::string(name);
  }();
  return host;
}

const char* level_name(Level level) {
  switch (level) {
    case Level::kWarn:
      return "WARN";
    case Level::kInfo:
      return "INFO";
    case Level::kTrace:
      return "TRACE";
    case Level::kNone:
      break;
  }
  return "";
}

}  // namespace

Level threshold() {
  static const Level level = parse_level();
  return level;
}

void set_rank(int rank) { g_rank.store(rank); }

bool RateLimit::allow(uint64_t& suppressed) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t next = next_ns_.load(std::memory_order_relaxed);
  // One thread wins the slot; the others count themselves held back.
  if (now < next || !next_ns_.compare_exchange_strong(next, now + 1'000'000'000)) {
    held_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  suppressed = held_.exchange(0, std::memory_order_relaxed);
  return true;
}

Line::~Line() {
  int rank = g_rank.load();
  std::string line = host_name() + ":" + std::to_string(getpid()) + " [" +
                     (rank < 0 ? std::string("-") : std::to_string(rank)) + "] weft " +
                     level_name(level_) + " " + out_.str();
  if (suppressed_ > 0) {
    line += " (and " + std::to_string(suppressed_) + " more like it since the last one shown)";
  }
  line += "\n";
  // One write() per line keeps concurrent writers from interleaving within a line.
  (void)!write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace weft::base::log

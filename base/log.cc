#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

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

// Whether the launcher shows the rank at the start of each line already.
bool rank_prefixed_by_launcher() {
  static const bool prefixed = [] {
    const char* value = std::getenv("WEFT_RANK_PREFIXED");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return prefixed;
}

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

std::string format_line(Level level, int rank, bool show_rank, std::string_view message,
                        uint64_t suppressed) {
  std::string line = host_name() + ":" + std::to_string(getpid()) + " ";
  if (show_rank) line += "[" + (rank < 0 ? std::string("-") : std::to_string(rank)) + "] ";
  line += std::string("weft ") + level_name(level) + " ";
  line += message;
  if (suppressed > 0) {
    line += " (and " + std::to_string(suppressed) + " more like it since the last one shown)";
  }
  return line + "\n";
}

bool first_time(const std::string& key) {
  static std::mutex mutex;
  static std::unordered_set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  return seen.insert(key).second;
}

Line::~Line() {
  const std::string line =
      format_line(level_, g_rank.load(), !rank_prefixed_by_launcher(), out_.str(), suppressed_);
  // One write() per line keeps concurrent writers from interleaving within a line.
  (void)!write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace weft::base::log

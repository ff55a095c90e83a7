// Logging, controlled by WEFT_DEBUG=NONE|WARN|INFO|TRACE (default WARN). Each line
// goes to stderr in one write, as "host:pid [rank] weft LEVEL message", so lines of
// concurrent ranks and threads never interleave mid-line. Under a launcher that
// prefixes every output line with the rank (weftrun sets WEFT_RANK_PREFIXED=1), the
// line leaves its own "[rank] " out, so the rank is not shown twice.
//
// INFO says what weft decided once per kind of event (a transport per peer, an
// algorithm per collective and size class); TRACE adds a line per message and call.
#pragma once

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace weft::base::log {

enum class Level { kNone = 0, kWarn = 1, kInfo = 2, kTrace = 3 };

// The level WEFT_DEBUG asks for, read once.
Level threshold();
inline bool enabled(Level level) {
  static const Level wanted = threshold();
  return level != Level::kNone && level <= wanted;
}
// The world rank shown in each line; -1 (before init) shows "-".
void set_rank(int rank);

// One line as it is written, newline included: "host:pid [rank] weft LEVEL message",
// without "[rank] " when `show_rank` is false, and with the count of lines held back
// (see RateLimit) at the end when `suppressed` is not 0.
std::string format_line(Level level, int rank, bool show_rank, std::string_view message,
                        uint64_t suppressed = 0);

// True the first time this process asks about `key`, false ever after (thread-safe):
// for lines said once per kind of event, at INFO, and again at TRACE.
bool first_time(const std::string& key);

class Line {
 public:
  // `suppressed`: lines of this call site that a RateLimit held back before this one,
  // said at the end of the line.
  explicit Line(Level level, uint64_t suppressed = 0) : level_(level), suppressed_(suppressed) {}
  ~Line();
  std::ostream& stream() { return out_; }

 private:
  Level level_;
  uint64_t suppressed_;
  std::ostringstream out_;
};

// One call site's limit for a warning that a loop or a stream of hostile connections
// could repeat: its first line goes out, then at most one a second, which says how
// many were held back. Thread-safe.
class RateLimit {
 public:
  // Whether a line may go out now; if so, `suppressed` is set to the lines held back
  // since the last one that went out.
  bool allow(uint64_t& suppressed);

 private:
  std::atomic<int64_t> next_ns_{0};
  std::atomic<uint64_t> held_{0};
};

// The spellings WEFT_LOG(WARN), WEFT_LOG(INFO) and WEFT_LOG(TRACE) resolve here.
namespace levels {
inline constexpr Level WARN = Level::kWarn;
inline constexpr Level INFO = Level::kInfo;
inline constexpr Level TRACE = Level::kTrace;
}  // namespace levels

}  // namespace weft::base::log

#define WEFT_LOG(level)                                                \
  if (!::weft::base::log::enabled(::weft::base::log::levels::level)) { \
  } else                                                               \
    ::weft::base::log::Line(::weft::base::log::levels::level).stream()

// WEFT_LOG, limited to one line a second from this call site (see RateLimit). Each
// expansion has a limit of its own: the lambda's type is unique to it.
#define WEFT_LOG_LIMITED(level)                                        \
  if (uint64_t weft_log_suppressed_ = 0;                               \
      !::weft::base::log::enabled(::weft::base::log::levels::level) || \
          ![]() -> ::weft::base::log::RateLimit& {                     \
        static ::weft::base::log::RateLimit limit;                     \
        return limit;                                                  \
      }()                                                              \
                       .allow(weft_log_suppressed_)) {                 \
  } else                                                               \
    ::weft::base::log::Line(::weft::base::log::levels::level, weft_log_suppressed_).stream()

// Logging, controlled by WEFT_DEBUG=NONE|WARN|INFO|TRACE (default WARN). Each line
// goes to stderr in one write, as "host:pid [rank] weft LEVEL message", so lines of
// concurrent ranks and threads never interleave mid-line.
#pragma once

#include <sstream>

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

class Line {
 public:
  explicit Line(Level level) : level_(level) {}
  ~Line();
  std::ostream& stream() { return out_; }

 private:
  Level level_;
  std::ostringstream out_;
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

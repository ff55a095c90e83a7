// LineRelay: turns the bytes one rank writes to stdout (or stderr) into whole lines for
// weftrun's own stdout (or stderr). Holding bytes back until the newline is what keeps
// lines of different ranks from interleaving mid-line, since weftrun writes each batch
// of whole lines in one go.
//
// With a prefix ("[2] "), every line gets it, and a last line without a newline is
// finished with one at EOF so the next rank's line starts cleanly. Without a prefix the
// bytes come out exactly as written. A line longer than max_line is passed on in pieces
// of max_line bytes (each its own prefixed line), so a rank that never writes a newline
// cannot make weftrun buffer without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace weft::weftrun {

class LineRelay {
 public:
  static constexpr size_t kDefaultMaxLine = 64 * 1024;

  explicit LineRelay(std::string prefix = "", size_t max_line = kDefaultMaxLine);

  // Appends to *out every line completed by `data`.
  void feed(std::string_view data, std::string* out);
  // At EOF: appends the unfinished last line, if any.
  void finish(std::string* out);

  bool has_pending() const { return !pending_.empty(); }

 private:
  void emit(std::string_view line, bool add_newline, std::string* out) const;

  std::string prefix_;
  size_t max_line_;
  std::string pending_;  // the current line so far, without a newline
};

// "[rank] ", the prefix weftrun puts on each line of `rank`.
std::string rank_prefix(int rank);

}  // namespace weft::weftrun

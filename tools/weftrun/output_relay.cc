#include "tools/weftrun/output_relay.h"

#include <algorithm>

namespace weft::weftrun {

LineRelay::LineRelay(std::string prefix, size_t max_line)
    : prefix_(std::move(prefix)), max_line_(std::max<size_t>(max_line, 1)) {}

void LineRelay::emit(std::string_view line, bool add_newline, std::string* out) const {
  out->append(prefix_);
  out->append(line);
  if (add_newline) out->push_back('\n');
}

void LineRelay::feed(std::string_view data, std::string* out) {
  while (!data.empty()) {
    size_t newline = data.find('\n');
    if (newline == std::string_view::npos) {
      pending_.append(data);
      break;
    }
    std::string_view rest_of_line = data.substr(0, newline + 1);
    if (pending_.empty()) {
      emit(rest_of_line, false, out);
    } else {
      pending_.append(rest_of_line);
      emit(pending_, false, out);
      pending_.clear();
    }
    data.remove_prefix(newline + 1);
  }
  // Only a prefixed piece gets a newline of its own: unprefixed output stays byte-exact.
  while (pending_.size() > max_line_) {
    emit(std::string_view(pending_).substr(0, max_line_), !prefix_.empty(), out);
    pending_.erase(0, max_line_);
  }
}

void LineRelay::finish(std::string* out) {
  if (pending_.empty()) return;
  emit(pending_, !prefix_.empty(), out);
  pending_.clear();
}

std::string rank_prefix(int rank) { return "[" + std::to_string(rank) + "] "; }

}  // namespace weft::weftrun

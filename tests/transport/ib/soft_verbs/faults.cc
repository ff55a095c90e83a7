#include "tests/transport/ib/soft_verbs/faults.h"

#include <charconv>

namespace weft::testing::soft_verbs {
namespace {

constexpr char kKnown[] = "known: bad_rkey_after:N, drop_completion_after:N";

}  // namespace

std::optional<FaultPlan> parse_fault_plan(const std::string& spec, std::string* why) {
  FaultPlan plan;
  size_t begin = 0;
  while (begin < spec.size()) {
    size_t end = spec.find(',', begin);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(begin, end - begin);
    begin = end + 1;
    const size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    uint64_t count = 0;
    const char* first = item.data() + (colon == std::string::npos ? item.size() : colon + 1);
    const char* last = item.data() + item.size();
    const auto parsed = std::from_chars(first, last, count);
    if (colon == std::string::npos || first == last || parsed.ec != std::errc() ||
        parsed.ptr != last) {
      *why = "'" + item + "' is not NAME:COUNT (" + kKnown + ")";
      return std::nullopt;
    }
    if (name == "bad_rkey_after") {
      plan.bad_rkey_after = count;
    } else if (name == "drop_completion_after") {
      plan.drop_completion_after = count;
    } else {
      *why = "unknown fault '" + name + "' (" + kKnown + ")";
      return std::nullopt;
    }
  }
  return plan;
}

void Faults::arm(const FaultPlan& plan) {
  plan_ = plan;
  writes_ = 0;
  completions_ = 0;
}

bool Faults::corrupt_this_write() {
  return plan_.bad_rkey_after && writes_++ == *plan_.bad_rkey_after;
}

bool Faults::drop_this_completion() {
  return plan_.drop_completion_after && completions_++ == *plan_.drop_completion_after;
}

}  // namespace weft::testing::soft_verbs

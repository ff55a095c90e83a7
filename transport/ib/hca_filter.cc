#include "transport/ib/hca_filter.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/env.h"
#include "weft/error.h"

namespace weft::transport::ib {
namespace {

constexpr char kVariable[] = "WEFT_IB_HCA";

[[noreturn]] void refuse(const std::string& text, const std::string& problem) {
  throw InvalidArgument(std::string(kVariable) + "=" + text + ": " + problem +
                        "; expected a comma-separated list of name[:port], optionally after ^ "
                        "(leave these out) and = (exact names), e.g. mlx5_0:1,mlx5_1 or ^=mlx5_2");
}

// Kernel device names are letters, digits and _ . - ("mlx5_0", "rxe0", "bnxt_re1").
bool is_name_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

HcaFilter::Entry parse_entry(const std::string& text, const std::string& item) {
  HcaFilter::Entry entry;
  const size_t colon = item.find(':');
  entry.name = item.substr(0, colon);
  if (entry.name.empty()) refuse(text, "'" + item + "' has no device name");
  for (char c : entry.name) {
    if (!is_name_character(c)) {
      refuse(text,
             "'" + entry.name + "' is not a device name (character '" + std::string(1, c) + "')");
    }
  }
  if (colon == std::string::npos) return entry;
  const std::string port = item.substr(colon + 1);
  const bool digits =
      !port.empty() && port.size() <= 3 && std::all_of(port.begin(), port.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
  entry.port = digits ? std::stoi(port) : 0;
  if (entry.port < 1 || entry.port > 255) {
    refuse(text, "port '" + port + "' of " + entry.name + " is not a number in [1, 255]");
  }
  return entry;
}

}  // namespace

HcaFilter HcaFilter::parse(const std::string& text) {
  HcaFilter filter;
  filter.setting_ = std::string(kVariable) + "=" + text;
  size_t at = 0;
  if (at < text.size() && text[at] == '^') {
    filter.exclude_ = true;
    ++at;
  }
  if (at < text.size() && text[at] == '=') {
    filter.exact_ = true;
    ++at;
  }
  const std::string list = text.substr(at);
  if (list.empty()) refuse(text, "no device named");
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) refuse(text, "an empty entry");
    filter.entries_.push_back(parse_entry(text, item));
  }
  if (list.back() == ',') refuse(text, "an empty entry");
  return filter;
}

HcaFilter HcaFilter::from_env() {
  auto text = base::env::get(kVariable);
  return text ? parse(*text) : HcaFilter();
}

bool HcaFilter::names(const Entry& entry, const std::string& device) const {
  return exact_ ? device == entry.name : device.compare(0, entry.name.size(), entry.name) == 0;
}

bool HcaFilter::selects(const std::string& device, int port) const {
  if (entries_.empty()) return true;
  const bool named = std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return names(e, device) && (e.port == 0 || e.port == port);
  });
  return named != exclude_;
}

bool HcaFilter::may_select(const std::string& device) const {
  if (entries_.empty()) return true;
  if (exclude_) {
    return std::none_of(entries_.begin(), entries_.end(),
                        [&](const Entry& e) { return names(e, device) && e.port == 0; });
  }
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return names(e, device); });
}

}  // namespace weft::transport::ib
